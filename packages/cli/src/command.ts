// The shape every command follows (docs/architecture.md, "The CLI"): an options type, a parse step that
// turns commander's raw values into those options (throwing UsageError), and
// run(io, options) that does the work and returns the exit code. `bind` wires the two into a
// commander action; the program turns thrown CliErrors into envelope lines.
import type { Command } from 'commander';
import { CredentialStore } from './config-store.ts';
import type { IO } from './io.ts';
import type { ExitCode } from './output.ts';

export interface RawInput {
  /** Positional arguments, in declaration order. */
  args: unknown[];
  /** Options as commander parsed them (camelCase keys). */
  flags: Record<string, unknown>;
}

export interface Definition<Options> {
  parse(raw: RawInput): Options;
  run(io: IO, options: Options): Promise<ExitCode>;
}

/** Where a command reports its exit code to the program. */
export interface Session {
  io: IO;
  exitCode: ExitCode;
}

export function bind<Options>(session: Session, definition: Definition<Options>) {
  return async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    const options = definition.parse({ args: command.processedArgs, flags: command.opts() });
    session.exitCode = await definition.run(session.io, options);
  };
}

/** The credential store for this environment; mode fixes are reported on stderr. */
export function storeFor(io: IO): CredentialStore {
  return CredentialStore.fromEnv(io.env, (message) => io.stderr.write(`charta: warning: ${message}\n`));
}

/** A string flag or argument, or undefined when absent. */
export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A prompt's validate(): true when `check` passes, else the message it threw. */
export function validity(check: () => unknown): true | string {
  try {
    check();
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}
