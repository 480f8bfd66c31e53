// The install scenario's load: `connections` keep-alive connections, each POSTing the next
// package of a prebuilt list as multipart/form-data (`is_enabled`=True, file `package`) as soon
// as its previous upload was answered, until the list is used up. Latency is from the first byte
// sent to the last byte of the answer. Bodies are assembled before the clock starts, so the load
// generator only writes bytes.
import http from 'node:http';

export interface UploadSpec {
  url: string;
  path: string;
  connections: number;
  headers: Record<string, string>;
  /** One upload each, in order; the run ends when all are answered. */
  files: Array<{ filename: string; bytes: Buffer }>;
  expect: number;
}

export interface UploadResult {
  /** Uploads answered `expect` per second, from the first upload sent to the last answer. */
  okPerSecond: number;
  /** Megabytes (10^6) of package uploaded per second in the answered-`expect` uploads. */
  megabytesPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  ok: number;
  /** Any other status, and connection errors. */
  failed: number;
  statusCodes: Record<string, number>;
  /** The first unexpected answer, for the console. */
  firstFailure?: string;
  seconds: number;
}

const BOUNDARY = '----charta-bench-7d1f0c9e2b5a4';

/** The multipart body the plugin tool sends: `is_enabled` then the `package` file. */
export function multipartBody(filename: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="is_enabled"\r\n\r\nTrue\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="package"; filename="${filename}"\r\nContent-Type: application/gzip\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

function post(agent: http.Agent, url: URL, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function uploadAll(spec: UploadSpec): Promise<UploadResult> {
  const url = new URL(spec.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const bodies = spec.files.map((f) => ({ body: multipartBody(f.filename, f.bytes), size: f.bytes.length }));
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let failed = 0;
  let okBytes = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = performance.now();
  let last = started;
  const connection = async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      const t0 = performance.now();
      try {
        const { status, text } = await post(agent, url, spec.path, spec.headers, bodies[i]!.body);
        last = performance.now();
        statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        if (status === spec.expect) {
          latencies.push(last - t0);
          okBytes += bodies[i]!.size;
        } else {
          failed++;
          firstFailure ??= `${status} ${text.slice(0, 300)}`;
        }
      } catch (err) {
        last = performance.now();
        failed++;
        statusCodes.error = (statusCodes.error ?? 0) + 1;
        firstFailure ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, connection));
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  const seconds = (last - started) / 1000;
  return {
    okPerSecond: seconds > 0 ? sorted.length / seconds : 0,
    megabytesPerSecond: seconds > 0 ? okBytes / 1e6 / seconds : 0,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1]!,
    ok: sorted.length,
    failed,
    statusCodes,
    firstFailure,
    seconds,
  };
}
