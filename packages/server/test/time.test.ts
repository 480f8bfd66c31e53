// Microsecond timestamps on the wire (lib/time.ts): the format, and the cached second prefix
// never leaking from one second into another.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isoMicros, parseTimestampMicros } from '../src/lib/time.ts';

it('isoMicros writes six fraction digits in UTC', () => {
  assert.equal(isoMicros(0), '1970-01-01T00:00:00.000000Z');
  assert.equal(isoMicros(1_763_950_000_123_456), '2025-11-24T02:06:40.123456Z');
  assert.equal(isoMicros(1_763_950_000_000_007), '2025-11-24T02:06:40.000007Z');
  assert.equal(isoMicros(1_763_950_000_999_999), '2025-11-24T02:06:40.999999Z');
});

it('isoMicros is right whichever second and day it formatted before (the prefix caches)', () => {
  const midnight = 1_763_942_400_000_000; // 2025-11-24T00:00:00Z
  const times = [
    1_763_950_000_999_999,
    1_763_950_001_000_000,
    1_763_950_000_000_001,
    4_102_444_799_999_999,
    1_763_950_001_500_000,
    midnight - 1,
    midnight,
    midnight + 3_599_999_999,
    midnight + 3_600_000_000,
    midnight + 86_399_999_999,
    midnight + 86_400_000_000,
    951_782_400_000_000, // 2000-02-29T00:00:00Z
    -1, // 1969-12-31T23:59:59.999999Z
  ];
  for (const us of [...times, ...times.reverse()]) {
    const text = isoMicros(us);
    assert.equal(parseTimestampMicros(text), us, text);
    assert.equal(text.slice(0, 23), new Date(Math.floor(us / 1000)).toISOString().slice(0, 23), text);
  }
});

it('isoMicros agrees with Date#toISOString for any instant in microseconds, in any order (the day computed without a Date)', () => {
  const agrees = (us: number) => {
    const text = isoMicros(us);
    const date = new Date(Math.floor(us / 1000)).toISOString();
    // Everything up to the milliseconds is Date's; then three more digits and the zone.
    assert.equal(text.slice(0, text.indexOf('.') + 4), date.slice(0, date.indexOf('.') + 4), `${us}: ${text}`);
    assert.match(text, /\.\d{6}Z$/);
  };
  // Every safe integer of microseconds: 1684 to 2255.
  fc.assert(
    fc.property(fc.array(fc.maxSafeInteger(), { minLength: 1, maxLength: 20 }), (instants) => instants.forEach(agrees)),
    { numRuns: 2000 },
  );
  // Around the calendar's turns: leap days, and centuries that are not leap years.
  for (const iso of [
    '2000-02-29T23:59:59.999Z',
    '2100-03-01T00:00:00.000Z',
    '1900-02-28T12:00:00.000Z',
    '1700-03-01T00:00:00.000Z',
    '2200-02-28T23:59:59.999Z',
  ]) {
    const us = Date.parse(iso) * 1000;
    assert.equal(isoMicros(us), `${iso.slice(0, -1)}000Z`, iso);
  }
  // Past the year 9999 (no timestamp Charta stores), Date's six-digit years.
  agrees(Date.parse('+010000-01-01T00:00:00.000Z') * 1000);
});
