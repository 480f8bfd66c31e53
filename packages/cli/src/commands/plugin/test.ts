// charta plugin test [dir]
// Runs a plugin project's tests with every handler call made in the sandbox the instance runs
// plugins in (docs/plugins.md, "Testing a plugin"): builds the project as `charta plugin build`
// does, loads the package as an instance would (its install check, the runner process, QuickJS,
// the plugin's limits; local/plugin.ts), serves the calls of `runInSandbox` (local/endpoint.ts)
// and runs the project's *.test.* files with node's test runner through tsx, with
// CHARTA_PLUGIN_SANDBOX naming the endpoint. Prints one line per test (local/reporter.ts), then a
// summary line; exit 1 when a test failed. Local only: needs no host or key.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { SANDBOX_ENV } from '@charta/plugin-sdk/testing';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, Failure, UsageError, envelope, printLine, type Envelope, type ExitCode } from '../../output.ts';
import { loadProject } from '../../local/plugin.ts';
import { startEndpoint } from '../../local/endpoint.ts';
import { packagedFiles } from '../../packaging/pack.ts';

/** What a test file's name ends with (node's own test files, in TypeScript or JavaScript). */
const TEST_FILE = /\.test\.(ts|mts|cts|js|mjs|cjs)$/;
const REPORTER = fileURLToPath(new URL('../../local/reporter.mjs', import.meta.url));

export interface TestOptions {
  dir: string;
}

export function parse({ args }: RawInput): TestOptions {
  const dir = optionalString(args[0]) ?? '.';
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) throw new UsageError(`Not a directory: ${dir}`, { path: dir });
  return { dir };
}

/** The project's test files, relative to it: every *.test.* among its files as the package sees them (outside node_modules, the top-level dist and hidden directories). */
export function testFiles(dir: string): string[] {
  return packagedFiles(dir).filter((file) => TEST_FILE.test(path.posix.basename(file)));
}

export async function run(io: IO, options: TestOptions): Promise<ExitCode> {
  const dir = path.resolve(options.dir);
  const files = testFiles(dir);
  if (files.length === 0) throw new Failure(`No tests found: no *.test.ts (or .mts, .js, .mjs…) file in ${dir}`, { project_dir: dir });
  const project = await loadProject(dir, io.env);
  const { plugin, built } = project;
  const endpoint = await startEndpoint(project).catch(async (err: unknown) => {
    await plugin.close();
    throw err;
  });
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0 };
  let code: number | null;
  try {
    const env: NodeJS.ProcessEnv = { ...io.env, [SANDBOX_ENV]: endpoint.url };
    // Inside another test runner (charta's own tests), it would make this one report to it instead.
    delete env.NODE_TEST_CONTEXT;
    // The tool's own tsx, so that a project's TypeScript tests run as `npm test` runs them.
    const args = ['--import', import.meta.resolve('tsx'), '--test', `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', ...files];
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.on('data', (chunk: Buffer) => io.stderr.write(chunk.toString()));
    const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      let parsed: Envelope & { outcome?: keyof typeof counts };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        if (line.trim() !== '') io.stderr.write(`${line}\n`);
        return;
      }
      if (parsed.outcome !== undefined && parsed.outcome in counts) counts[parsed.outcome]++;
      printLine(io.stdout, parsed);
    });
    code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (exit) => resolve(exit));
    });
  } finally {
    await endpoint.close();
    await plugin.close();
  }
  const tests = counts.pass + counts.fail + counts.skip + counts.todo;
  const extra = {
    project_dir: dir,
    package: built.file,
    tests,
    passed: counts.pass,
    failed: counts.fail,
    skipped: counts.skip + counts.todo,
    sandbox_calls: endpoint.calls,
  };
  if (counts.fail > 0) {
    printLine(io.stdout, envelope(false, `${counts.fail} of ${tests} tests failed in the sandbox`, extra));
    return EXIT.failure;
  }
  if (code !== 0 || tests === 0) {
    printLine(io.stdout, envelope(false, tests === 0 ? 'No test ran' : `The test runner exited with code ${code}`, extra));
    return EXIT.failure;
  }
  printLine(io.stdout, envelope(true, `${counts.pass} tests passed in the sandbox`, extra));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('test')
    .description("run a plugin project's tests with every handler call in the instance's sandbox (runInSandbox of @charta/plugin-sdk/testing)")
    .argument('[dir]', 'the project directory', '.')
    .action(bind(session, { parse, run }));
}
