// Microsecond timestamps: the wall clock refined by the monotonic high-resolution clock,
// strictly increasing within a process so two writes never share a timestamp.

const originWallUs = BigInt(Date.now()) * 1000n;
const originHr = process.hrtime.bigint();
let last = 0;

/** Microseconds since the Unix epoch. */
export function nowMicros(): number {
  const now = Number(originWallUs + (process.hrtime.bigint() - originHr) / 1000n);
  last = now > last ? now : last + 1;
  return last;
}

// The `YYYY-MM-DDTHH:MM:SS.` of the last second formatted, and the `YYYY-MM-DDT` of the last day:
// a list page's timestamps mostly share the one or the other, and Date#toISOString was a visible
// share of a page's CPU. A day not cached is computed from the day number (dayPrefix), not
// through a Date: 0.2 µs where toISOString took 0.7–0.8 (docs/performance.md, "Timestamps").
let cachedSecond = NaN;
let cachedPrefix = '';
let cachedDay = NaN;
let cachedDayPrefix = '';
const SECONDS_PER_DAY = 86_400;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `2026-11-22T` of a day counted from 1970-01-01 (the proleptic Gregorian calendar, as
 * Date#toISOString): Howard Hinnant's days-to-civil, in 400-year eras of 146,097 days. Years
 * outside 0000–9999, which toISOString writes with six digits and a sign, go through a Date.
 */
function dayPrefix(day: number): string {
  const z = day + 719_468; // days from 0000-03-01
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100)); // from March 1st
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, -13);
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(dayOfMonth)}T`;
}

/** `2026-11-22T05:26:28.123456Z` */
export function isoMicros(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== cachedSecond) {
    const day = Math.floor(second / SECONDS_PER_DAY);
    if (day !== cachedDay) {
      cachedDayPrefix = dayPrefix(day);
      cachedDay = day;
    }
    const s = second - day * SECONDS_PER_DAY;
    cachedPrefix = `${cachedDayPrefix}${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.`;
    cachedSecond = second;
  }
  return `${cachedPrefix}${String(us - second * 1_000_000).padStart(6, '0')}Z`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A real calendar date `YYYY-MM-DD` → microseconds at 00:00 UTC, else undefined. */
export function parseDateMicros(text: string): number | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) return undefined;
  return ms * 1000;
}

/** An ISO 8601 timestamp with zone (`Z` or offset), up to microseconds → microseconds, else undefined. */
export function parseTimestampMicros(text: string): number | undefined {
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return undefined;
  const day = parseDateMicros(`${m[1]}-${m[2]}-${m[3]}`);
  const [h, min, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (day === undefined || h > 23 || min > 59 || s > 59) return undefined;
  const fraction = Number((m[7] ?? '').padEnd(6, '0'));
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const sign = m[8]!.startsWith('-') ? -1 : 1;
    const digits = m[8]!.slice(1).replace(':', '');
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
    if (oh > 23 || om > 59) return undefined;
    offsetMin = sign * (oh * 60 + om);
  }
  return day + ((h * 60 + min - offsetMin) * 60 + s) * 1_000_000 + fraction;
}

export const DAY_MICROS = 86_400_000_000;
