// charta plugin run [dir] --event FILE.json [--fixture FILE.json] [--secret KEY=VALUE]… [--grant NAME]…
// Runs one event through a plugin project's handlers on this machine, in the sandbox the instance
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
  event: JsonObject & { type: string };
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

export function parse({ args, flags }: RawInput): RunOptions {
  const dir = optionalString(args[0]) ?? '.';
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) throw new UsageError(`Not a directory: ${dir}`, { path: dir });
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
  const fixtureFile = optionalString(flags.fixture);
  return {
    dir,
    event: event as RunOptions['event'],
    fixtureFile,
    fixture: fixtureFile === undefined ? undefined : readJson('--fixture', fixtureFile),
    secrets: Object.fromEntries(secretFields(flags.secret)),
    grants: collected(flags.grant),
  };
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
    const type = options.event.type;
    const targets = plugin.targets(type);
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
        call = await plugin.call(handler, as, options.event, given);
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
    .requiredOption('--event <file>', 'the event, a JSON file (as the instance sends it, or createEvent builds it)')
    .option('--fixture <file>', 'what this.data reads: a JSON file of patients, notes, commands, chart and metadata')
    .option('--secret <KEY=VALUE>', "a secret the plugin's manifest declares (repeatable)", collect)
    .option('--grant <name>', 'a grant an administrator would give the plugin, e.g. data:instance (repeatable)', collect)
    .action(bind(session, { parse, run }));
}
