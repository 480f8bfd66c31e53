// One measurement: autocannon against a URL for a fixed time, with latencies recorded at
// sub-millisecond resolution (autocannon's own histogram keeps whole milliseconds).
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Stop after this many requests instead of after `duration`. */
  amount?: number;
  headers: Record<string, string>;
  /** Requests cycled through by every connection (see autocannon's `requests`). */
  requests: autocannon.Request[];
}

export interface LoadResult {
  /** 2xx responses per second over the run: what the table calls req/s. */
  okPerSecond: number;
  /** autocannon's mean of per-second samples, every response counted. */
  meanPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Seconds from the first response to the last. */
  seconds: number;
}

export async function measure(spec: LoadSpec): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  // Autocannon's clock starts before it builds its clients and their requests; the rate is
  // counted from the first response to the last, so that set-up time does not read as slowness.
  let first = 0;
  let last = 0;
  // Without a callback autocannon returns its tracker, an EventEmitter that is also thenable.
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    ...(spec.amount === undefined ? { duration: spec.duration } : { amount: spec.amount }),
    headers: spec.headers,
    requests: spec.requests,
  }) as unknown as Promise<autocannon.Result> & { on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void };
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    last = performance.now();
    if (first === 0) first = last;
    if (statusCode < 200 || statusCode > 299) return;
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, count).sort();
  const at = (q: number) => (count === 0 ? NaN : sorted[Math.min(count - 1, Math.floor(q * count))]!);
  const statusCodes = Object.fromEntries(
    Object.entries((result as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats).map(([code, s]) => [code, s.count]),
  );
  return {
    okPerSecond: last > first ? result['2xx'] / ((last - first) / 1000) : 0,
    meanPerSecond: result.requests.mean,
    p50: at(0.5),
    p99: at(0.99),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    seconds: (last - first) / 1000,
  };
}
