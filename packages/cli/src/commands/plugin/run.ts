// charta plugin run [dir] --event FILE.json [--fixture FILE.json] [--secret KEY=VALUE]… [--grant NAME]…
// charta plugin run [dir] --tick [TIME] [--handler NAME] [--fixture FILE.json] [--secret KEY=VALUE]… [--grant NAME]…
// Runs one event (or a tick of a scheduled handler: the CRON event the instance would give it at
// TIME, now by default) through a plugin project's handlers on this machine, in the sandbox the instance
// runs plugins in (docs/plugins.md, "Testing a plugin"): builds and loads the project as
// `charta plugin test` does (local/plugin.ts), gives the event to every handler the instance
// would give it to, in its order, with `this.data` reading the fixture, and prints, for each, the
// lines the instance's log stream would show of the call (as `charta logs` prints them) and then
// its answer: the effects, or the fault. Nothing is applied. Exit 1 when a call faulted.
import fs from 'node:fs';
import type { Command } from 'commander';
import { isEventName } from '@charta/plugin-sdk';
import type { JsonObject, LogEntry } from '@charta/server/local-runtime';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, Failure, UsageError, envelope, printLine, type ExitCode } from '../../output.ts';
import { collect, collected, secretFields } from '../../instance.ts';
import { loadProject } from '../../local/plugin.ts';
import { localRuntime } from '../../local/runtime.ts';

export interface RunOptions {
  dir: string;
  /** --event's event, or (undefined) a tick: */
  event: (JsonObject & { type: string }) | undefined;
  /** --tick's time (ms) and --handler's handler (undefined: the plugin's only scheduled one). */
  tick?: { at: number; handler: string | undefined };
  fixtureFile: string | undefined;
  /** The fixture's JSON, checked once the runtime is loaded. */
  fixture: unknown;
  secrets: Record<string, string>;
  grants: string[];
}

/** A JSON file given by a flag, parsed: a usage error for a file that cannot be read or is not JSON. */
function readJson(flag: string, file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `Cannot read the ${flag} file ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message}`,
      { path: file },
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`The ${flag} file ${file} is not JSON: ${(err as Error).message}`, { path: file });
  }
}

/** --tick [TIME]: the time (ms), now without one; a usage error for what is not a time. */
function tickTime(value: unknown): number {
  if (value === true || value === undefined) return Date.now();
  const text = String(value);
  const at = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) throw new UsageError(`--tick ${JSON.stringify(text.slice(0, 60))} is not an ISO 8601 time (e.g. 2026-11-26T02:00:00Z)`);
  return at;
}

export function parse({ args, flags }: RawInput): RunOptions {
  const dir = optionalString(args[0]) ?? '.';
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) throw new UsageError(`Not a directory: ${dir}`, { path: dir });
  const given = {
    fixtureFile: optionalString(flags.fixture),
    secrets: Object.fromEntries(secretFields(flags.secret)),
    grants: collected(flags.grant),
  };
  const withFixture = () => ({ ...given, fixture: given.fixtureFile === undefined ? undefined : readJson('--fixture', given.fixtureFile) });
  if (flags.tick !== undefined && flags.event !== undefined) throw new UsageError('Give --event or --tick, not both');
  if (flags.event === undefined && flags.tick === undefined)
    throw new UsageError('Give --event FILE (an event) or --tick [TIME] (a tick of a scheduled handler)');
  if (flags.handler !== undefined && flags.tick === undefined) throw new UsageError('--handler names the scheduled handler of --tick');
  if (flags.tick !== undefined) return { dir, event: undefined, tick: { at: tickTime(flags.tick), handler: optionalString(flags.handler) }, ...withFixture() };
  const eventFile = optionalString(flags.event) ?? '';
  const event = readJson('--event', eventFile);
  if (typeof event !== 'object' || event === null || Array.isArray(event) || typeof (event as { type?: unknown }).type !== 'string') {
    const what = 'a JSON object with its "type" (as the instance sends it, or createEvent of the SDK builds it)';
    throw new UsageError(`The --event file ${eventFile} is not an event: ${what}`, { path: eventFile });
  }
  const type = (event as { type: string }).type;
  if (!isEventName(type)) {
    const named = JSON.stringify(type.slice(0, 100));
    throw new UsageError(`The --event file ${eventFile} has the type ${named}, which is not an event name Charta knows (docs/plugins.md, "Events")`, {
      path: eventFile,
    });
  }
  return { dir, event: event as RunOptions['event'], ...withFixture() };
}

/**
 * A line of the log stream as `charta logs` prints it: `success` false only for an error. Its
 * request id is the local call's own, which names no request of an instance: left out.
 */
const logLine = ({ request_id: _request, ...entry }: LogEntry) => envelope(entry.level !== 'error', entry);

export async function run(io: IO, options: RunOptions): Promise<ExitCode> {
  const runtime = await localRuntime();
  const checked = options.fixture === undefined ? undefined : runtime.checkFixture(options.fixture);
  if (checked !== undefined && !checked.ok) {
    throw new UsageError(`The --fixture file ${options.fixtureFile} is not a fixture: ${checked.reasons.join('; ')}`, {
      path: options.fixtureFile,
      errors: checked.reasons,
    });
  }
  const { plugin } = await loadProject(options.dir, io.env, runtime);
  try {
    const given = { secrets: options.secrets, grants: options.grants, ...(checked?.ok ? { fixture: checked.fixture } : {}) };
    const refused = plugin.refusals(given);
    if (refused.length > 0) throw new UsageError(`Cannot run the plugin with these flags: ${refused.join('; ')}`, { errors: refused });
    let targets: ReturnType<typeof plugin.targets>;
    let event: JsonObject;
    if (options.event === undefined) {
      const { at, handler: ref } = options.tick!;
      let handler;
      try {
        handler = plugin.scheduledHandler(ref);
      } catch (err) {
        if (err instanceof runtime.LocalRefusal) throw new UsageError(err.message);
        throw err;
      }
      event = plugin.tickEvent(handler, at);
      targets = [{ handler, type: String(event.type) }];
    } else {
      event = options.event;
      targets = plugin.targets(options.event.type);
    }
    const type = String(event.type);
    if (targets.length === 0) {
      printLine(
        io.stdout,
        envelope(true, `No handler of ${plugin.name} is given ${type} (its manifest's events, within each class's RESPONDS_TO)`, {
          event_type: type,
          effects: [],
        }),
      );
      return EXIT.ok;
    }
    let faulted = false;
    for (const { handler, type: as } of targets) {
      let call;
      try {
        call = await plugin.call(handler, as, event, given);
      } catch (err) {
        if (err instanceof runtime.LocalRefusal) throw new Failure(err.message);
        throw err;
      }
      for (const entry of plugin.notices.splice(0)) printLine(io.stdout, logLine(entry));
      for (const entry of call.logs) printLine(io.stdout, logLine(entry));
      const extra = { handler: call.handler, event_type: call.type, effects: call.effects, reads: call.reads };
      if (call.outcome === 'ok') {
        printLine(io.stdout, envelope(true, `${call.handler} answered ${call.effects.length} effect(s) to ${call.type}`, extra));
      } else {
        faulted = true;
        printLine(io.stdout, envelope(false, `${call.handler} on ${call.type} ${call.fault}`, { ...extra, fault: call.outcome }));
      }
    }
    return faulted ? EXIT.failure : EXIT.ok;
  } finally {
    await plugin.close();
  }
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('run')
    .description("run one event through a plugin project's handlers in the instance's sandbox, locally; print their log lines and effects")
    .argument('[dir]', 'the project directory', '.')
    .option('--event <file>', 'the event, a JSON file (as the instance sends it, or createEvent builds it)')
    .option('--tick [time]', 'instead of --event: a tick of a scheduled handler, the one due at this ISO 8601 time (default now)')
    .option('--handler <name>', 'with --tick: the scheduled handler (its class or <entry>:<class>), when the plugin has several')
    .option('--fixture <file>', 'what this.data reads: a JSON file of patients, notes, commands, chart and metadata')
    .option('--secret <KEY=VALUE>', "a secret the plugin's manifest declares (repeatable)", collect)
    .option('--grant <name>', 'a grant an administrator would give the plugin, e.g. data:instance (repeatable)', collect)
    .action(bind(session, { parse, run }));
}
