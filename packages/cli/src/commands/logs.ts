// charta logs [--plugin NAME] [--level LEVEL] [--since DURATION] [--host URL] [--api-key KEY]
// Follows an instance's log stream (docs/cli.md, "`charta logs`"; docs/api.md, "Log stream") over a WebSocket at
// `ws(s)://<host>/core/api/v1/logging/` (the URL from @charta/client), the raw API key in
// `Authorization` of the upgrade (never in the URL), so a refused key is an HTTP answer the line
// shows as it came. This socket is the tool's own (`ws`, for the header and that answer); the
// client's stream authenticates in the first message, as a browser must.
// First an informational line, then one line per entry whose `message` is the entry object and
// whose `success` is false only for error-level entries, so `jq 'select(.success == false)'`
// shows only failures. The options are checked here with the instance's vocabulary (usage
// error, exit 2); a refused upgrade, an unreachable host or the stream closing by the server
// is a failure line (exit 1); SIGINT / SIGTERM close the stream quietly (exit 0).
import type { Command } from 'commander';
import WebSocket from 'ws';
import { ChartaClient } from '@charta/client';
import { bind, optionalString, storeFor, type RawInput, type Session } from '../command.ts';
import type { IO } from '../io.ts';
import { reasonOf, InstanceFailure, targetFlags, withTargetOptions } from '../instance.ts';
import { EXIT, Failure, UsageError, envelope, printLine, type ExitCode } from '../output.ts';
import { resolveTarget, type TargetFlags } from '../target.ts';

export { LOG_LEVELS as LEVELS, type LogLevel } from '@charta/api/constants';
import { LOG_LEVELS as LEVELS, type LogLevel } from '@charta/api/constants';
/** How long a signal-triggered close waits for the server's acknowledgement. */
const CLOSE_GRACE_MS = 1000;

export interface LogsOptions {
  target: TargetFlags;
  plugin?: string | undefined;
  level?: LogLevel | undefined;
  since?: string | undefined;
}

const DURATION_RE = /^\d{1,6}[smhd]$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})$/;

/** `since` as the instance takes it: a duration (30s, 5m, 1h, 2d) or an ISO 8601 timestamp with zone. */
export function isSince(text: string): boolean {
  if (DURATION_RE.test(text)) return true;
  if (text.length > 64) return false;
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return false;
  const [year, month, day, h, min] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = Number(m[6] ?? 0);
  if (month! < 1 || month! > 12 || day! < 1 || day! > new Date(Date.UTC(year!, month!, 0)).getUTCDate()) return false;
  if (h! > 23 || min! > 59 || s > 59) return false;
  if (m[8] !== 'Z') {
    const digits = m[8]!.slice(1).replace(':', '');
    if (Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2)) > 59) return false;
  }
  return true;
}

export function parse({ flags }: RawInput): LogsOptions {
  const plugin = optionalString(flags.plugin);
  const level = optionalString(flags.level);
  const since = optionalString(flags.since);
  if (plugin !== undefined && (plugin.trim() === '' || plugin.length > 100)) {
    throw new UsageError(`Invalid --plugin '${plugin}': expected a plugin name of 1 to 100 characters`);
  }
  if (level !== undefined && !(LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`Invalid --level '${level}': expected one of ${LEVELS.join(', ')}`);
  }
  if (since !== undefined && !isSince(since)) {
    throw new UsageError(`Invalid --since '${since}': expected a duration (30s, 5m, 1h, 2d) or an ISO 8601 timestamp with zone`);
  }
  return { target: targetFlags(flags), plugin, level: level as LogLevel | undefined, since };
}

/** `ws(s)://<host>/core/api/v1/logging/?<options>`, as @charta/client builds it. */
export function streamUrl(host: string, options: LogsOptions): string {
  const filter = {
    ...(options.plugin !== undefined ? { plugin: options.plugin } : {}),
    ...(options.level !== undefined ? { level: options.level } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
  };
  return new ChartaClient({ baseUrl: host }).logs.streamUrl(filter);
}

/** One stream message as a line: the entry object (or the text if it is not JSON). */
function entryLine(data: WebSocket.RawData): ReturnType<typeof envelope> {
  const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
  let entry: unknown = text;
  try {
    entry = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  const level = typeof entry === 'object' && entry !== null ? (entry as { level?: unknown }).level : undefined;
  const line = envelope(level !== 'error', undefined);
  line.message = entry;
  return line;
}

export async function run(io: IO, options: LogsOptions): Promise<ExitCode> {
  const { host, apiKey } = resolveTarget(options.target, io.env, storeFor(io));
  const ws = new WebSocket(streamUrl(host, options), { headers: { authorization: apiKey }, perMessageDeflate: false, followRedirects: false });

  return new Promise<ExitCode>((resolve, reject) => {
    let opened = false;
    let settled = false;
    let stopping = false;
    const finish = (outcome: ExitCode | Error) => {
      if (settled) return;
      settled = true;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      if (ws.readyState === WebSocket.CLOSED) return finish(EXIT.ok);
      const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
      ws.once('close', () => {
        clearTimeout(timer);
        finish(EXIT.ok);
      });
      if (ws.readyState === WebSocket.OPEN) ws.close(1000);
      else ws.terminate();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // A reader that went away (`charta logs | head`): stop quietly.
    const stdout = io.stdout as { on?: (event: string, listener: (err: Error) => void) => unknown };
    if (typeof stdout.on === 'function' && io.stdout === process.stdout) stdout.on('error', stop);

    ws.on('open', () => {
      opened = true;
      printLine(io.stdout, envelope(true, `Connected to the log stream of ${host}`));
    });
    ws.on('message', (data) => {
      if (!stopping) printLine(io.stdout, entryLine(data));
    });
    ws.on('unexpected-response', (request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      const done = () => {
        request.destroy();
        let json: unknown;
        try {
          json = text.trim() === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        finish(new InstanceFailure({ status: response.statusCode ?? 0, text, json }));
      };
      response.on('end', done);
      response.on('error', done);
    });
    ws.on('error', (err) => {
      if (stopping) return;
      if (!opened) finish(new Failure(`Failed to connect to ${host}: ${reasonOf(err)}`));
      // After the upgrade, 'close' follows and reports the end of the stream.
    });
    ws.on('close', (code) => {
      if (stopping || settled) return;
      finish(new Failure(opened ? `The log stream closed (code ${code})` : `Failed to connect to ${host}: the connection closed`));
    });
  });
}

export function register(parent: Command, session: Session): Command {
  return withTargetOptions(
    parent
      .command('logs')
      .description("follow an instance's log stream: one JSON line per entry")
      .option('--plugin <name>', 'only the entries of this plugin')
      .option('--level <level>', `the minimum level (${LEVELS.join(', ')})`)
      .option('--since <duration>', 'replay recent entries first: a duration (30s, 5m, 1h, 2d) or an ISO 8601 timestamp'),
  ).action(bind(session, { parse, run }));
}
