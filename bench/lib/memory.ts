// The server's resident memory (issue 12: reported under load and after 1M requests, and it must
// not grow): VmRSS from /proc, sampled while a measurement runs.
import fs from 'node:fs';

/** The resident set of `pid` in MiB (NaN when it cannot be read). */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line === undefined ? NaN : Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return NaN;
  }
}

export interface RssSample {
  /** The largest sample taken during the measurement, MiB. */
  peak: number;
  /** At the end of the measurement, MiB. */
  end: number;
  /** The memory scenario: after the first tenth of its requests, MiB. */
  warmed?: number;
}

/** Samples `pid`'s RSS every `everyMs` until the returned function is called. */
export function rssSampler(pid: number | undefined, everyMs = 250): () => RssSample {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    const now = rssMiB(pid);
    if (now > peak) peak = now;
  }, everyMs);
  return () => {
    clearInterval(timer);
    const end = rssMiB(pid);
    return { peak: Math.max(peak, end), end };
  };
}
