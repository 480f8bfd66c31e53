// charta logs [--plugin NAME] [--level LEVEL] [--since DURATION] [--host URL] [--api-key KEY]
// Follows an instance's log stream (docs/cli.md, "`charta logs`"; docs/api.md, "Log stream") with
// @charta/client's stream: a WebSocket at `ws(s)://<host>/core/api/v1/logging/`, the API key in
// the first message (never in the URL). A refused key (close 4401) is a failure line with the
// status it stands for (401) and the instance's reason.
// First an informational line, then one line per entry whose `message` is the entry object and
// whose `success` is false only for error-level entries, so `jq 'select(.success == false)'`
// shows only failures. The options are checked here with the instance's vocabulary (usage
// error, exit 2); a refused upgrade, an unreachable host or the stream closing by the server
// is a failure line (exit 1); SIGINT / SIGTERM close the stream quietly (exit 0).
import type { Command } from 'commander';
import WebSocket from 'ws';
import { ChartaClient, type WebSocketLike } from '@charta/client';
import { bind, optionalString, storeFor, type RawInput, type Session } from '../command.ts';
import type { IO } from '../io.ts';
import { answerOf, reasonOf, InstanceFailure, targetFlags, withTargetOptions } from '../instance.ts';
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

/** One entry as a line: the entry object, a failure line only at error level. */
function entryLine(entry: unknown): ReturnType<typeof envelope> {
  const level = typeof entry === 'object' && entry !== null ? (entry as { level?: unknown }).level : undefined;
  const line = envelope(level !== 'error', undefined);
  line.message = entry;
  return line;
}

/**
 * A refusal of the stream (close code 4000 + the HTTP status it stands for: 4401 for 401) as the
 * HTTP refusal would read: its status and the instance's reason.
 */
function refusal(code: number, reason: string): InstanceFailure {
  const status = code - 4000;
  const problem = { status, detail: reason, close_code: code };
  return new InstanceFailure({ status, text: JSON.stringify(problem), json: problem });
}

export async function run(io: IO, options: LogsOptions): Promise<ExitCode> {
  const { host, apiKey } = resolveTarget(options.target, io.env, storeFor(io));
  return new Promise<ExitCode>((resolve, reject) => {
    let live = false;
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
    // The stream of @charta/client over `ws` (Node 20 has no global WebSocket), authenticated in
    // its first message and not reconnected: a lost stream ends the command. An upgrade the
    // instance refuses over HTTP (an option it rejects) is its answer as it came.
    let socket: WebSocket | undefined;
    let socketError: string | undefined;
    const webSocket = (url: string): WebSocketLike => {
      const ws = new WebSocket(url, { perMessageDeflate: false, followRedirects: false });
      ws.on('error', (err) => (socketError ??= reasonOf(err)));
      ws.on('unexpected-response', (request, response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        const done = () => {
          request.destroy();
          finish(new InstanceFailure(answerOf(response.statusCode ?? 0, text)));
        };
        response.on('end', done);
        response.on('error', done);
      });
      socket = ws;
      return ws as unknown as WebSocketLike;
    };
    const stream = new ChartaClient({ baseUrl: host }).logs.stream({
      plugin: options.plugin,
      level: options.level,
      since: options.since,
      token: () => apiKey,
      webSocket,
      reconnect: false,
      onEntry: (entry) => {
        if (!stopping) printLine(io.stdout, entryLine(entry));
      },
      onStatus: (status) => {
        if (stopping) return;
        if (status.state === 'live') {
          live = true;
          printLine(io.stdout, envelope(true, `Connected to the log stream of ${host}`));
        } else if (status.state === 'refused') finish(refusal(status.code, status.reason));
        else if (status.state === 'closed')
          finish(new Failure(live ? `The log stream closed (code ${status.code})` : `Failed to connect to ${host}: ${socketError ?? 'the connection closed'}`));
      },
    });
    function stop(): void {
      if (stopping) return;
      stopping = true;
      const open = socket;
      stream.close();
      if (open === undefined || open.readyState === WebSocket.CLOSED) return finish(EXIT.ok);
      // The server's acknowledgement of the close, or the grace period, whichever comes first.
      const timer = setTimeout(() => open.terminate(), CLOSE_GRACE_MS);
      open.once('close', () => {
        clearTimeout(timer);
        finish(EXIT.ok);
      });
    }
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // A reader that went away (`charta logs | head`): stop quietly.
    const stdout = io.stdout as { on?: (event: string, listener: (err: Error) => void) => unknown };
    if (typeof stdout.on === 'function' && io.stdout === process.stdout) stdout.on('error', stop);
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
