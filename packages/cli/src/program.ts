// The `charta` program: commander's command tree plus the rules every invocation follows —
// results and failures are JSON lines on stdout (docs/cli.md, "Output and exit codes"), usage errors (including
// commander's own) are `success: false` lines with exit 2, and an expected failure never
// prints a stack trace. Help text is the one thing printed as plain text.
import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import type { Session } from './command.ts';
import * as addApiKey from './commands/auth/add-api-key.ts';
import * as getApiKey from './commands/auth/get-api-key.ts';
import * as removeApiKey from './commands/auth/remove-api-key.ts';
import * as setDefaultHost from './commands/auth/set-default-host.ts';
import * as logs from './commands/logs.ts';
import * as audit from './commands/audit.ts';
import * as pluginBuild from './commands/plugin/build.ts';
import * as deadLettersDiscard from './commands/plugin/dead-letters/discard.ts';
import * as deadLettersList from './commands/plugin/dead-letters/list.ts';
import * as deadLettersReplay from './commands/plugin/dead-letters/replay.ts';
import * as pluginDelete from './commands/plugin/delete.ts';
import * as pluginInit from './commands/plugin/init.ts';
import * as pluginInstall from './commands/plugin/install.ts';
import * as pluginList from './commands/plugin/list.ts';
import * as pluginReads from './commands/plugin/reads.ts';
import * as pluginRun from './commands/plugin/run.ts';
import * as pluginTest from './commands/plugin/test.ts';
import * as pluginUpdate from './commands/plugin/update.ts';
import * as printConfig from './commands/print-config.ts';
import { PromptCancelled, type IO } from './io.ts';
import { CliError, EXIT, envelope, printLine, type ExitCode } from './output.ts';

export const VERSION: string = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/** Builds the command tree; commander's own output is captured so it can be reshaped. */
export function buildProgram(session: Session, captured: { out: string; err: string }): Command {
  const program = new Command('charta')
    .description('The plugin tool for Charta instances. Every result is one JSON line on stdout.')
    .version(VERSION, '-V, --version', 'print the version')
    // Program options only before a subcommand: `plugin init --version 1.0.0` is init's option.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void (captured.out += text),
      writeErr: (text) => void (captured.err += text),
    });

  // Subcommands created with .command() inherit exitOverride and the output configuration.
  const auth = program.command('auth').description('manage the API keys of Charta instances');
  addApiKey.register(auth, session);
  getApiKey.register(auth, session);
  removeApiKey.register(auth, session);
  setDefaultHost.register(auth, session);
  const plugin = program
    .command('plugin')
    .description('create, build, test and run plugin projects; install, update, delete and list the plugins of an instance, and their dead letters');
  pluginInit.register(plugin, session);
  pluginBuild.register(plugin, session);
  pluginTest.register(plugin, session);
  pluginRun.register(plugin, session);
  pluginInstall.register(plugin, session);
  pluginUpdate.register(plugin, session);
  pluginDelete.register(plugin, session);
  pluginList.register(plugin, session);
  pluginReads.register(plugin, session);
  const deadLetters = plugin
    .command('dead-letters')
    .description("list, replay and discard a plugin's dead letters: POST events whose handler still failed after its last attempt");
  deadLettersList.register(deadLetters, session);
  deadLettersReplay.register(deadLetters, session);
  deadLettersDiscard.register(deadLetters, session);
  logs.register(program, session);
  audit.register(program, session);
  printConfig.register(program, session);
  return program;
}

/** Runs one invocation (argv as in process.argv) and returns the exit code. */
export async function runCli(argv: string[], io: IO): Promise<ExitCode> {
  const session: Session = { io, exitCode: EXIT.ok };
  const captured = { out: '', err: '' };
  const program = buildProgram(session, captured);
  try {
    await program.parseAsync(argv);
    return session.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return commanderOutcome(err, io, captured);
    if (err instanceof CliError) {
      printLine(io.stdout, err.toEnvelope());
      return err.exitCode;
    }
    if (err instanceof PromptCancelled) {
      printLine(io.stdout, envelope(false, 'Aborted'));
      return EXIT.failure;
    }
    // A bug or an environment we did not foresee: still one JSON line; the stack only on request.
    printLine(io.stdout, envelope(false, `Unexpected error: ${(err as Error)?.message ?? String(err)}`));
    if (io.env.CHARTA_DEBUG) io.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.failure;
  }
}

function commanderOutcome(err: CommanderError, io: IO, captured: { out: string; err: string }): ExitCode {
  switch (err.code) {
    case 'commander.helpDisplayed':
      io.stdout.write(captured.out);
      return EXIT.ok;
    case 'commander.help':
      if (err.exitCode !== 0) return missingCommand(io, captured);
      io.stdout.write(captured.out); // `charta help <command>`
      return EXIT.ok;
    case 'commander.version':
      printLine(io.stdout, envelope(true, `charta ${VERSION}`, { version: VERSION }));
      return EXIT.ok;
    default: {
      const message = err.message
        .replace(/^error: /, '')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .join(' ');
      printLine(io.stdout, envelope(false, message, { hint: 'run `charta --help`' }));
      return EXIT.usage;
    }
  }
}

/** A command group called without a subcommand: its help on stderr, the failure as a line. */
function missingCommand(io: IO, captured: { err: string }): ExitCode {
  io.stderr.write(captured.err);
  const group = /^Usage: (.+?) \[options\]/.exec(captured.err)?.[1] ?? 'charta';
  printLine(io.stdout, envelope(false, `Missing command; run \`${group} --help\``));
  return EXIT.usage;
}
