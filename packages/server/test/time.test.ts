// Microsecond timestamps on the wire (lib/time.ts): the format, and the cached second prefix
// never leaking from one second into another.
import { it } from 'node:test';
import assert from 'node:assert/strict';
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
