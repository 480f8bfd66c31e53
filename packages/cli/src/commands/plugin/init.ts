// charta plugin init [--no-input] [--full-name … --email … --version … --project-name …
//   --project-slug … --project-package-name … --project-short-description …] [--output-dir DIR]
// Creates a TypeScript plugin project in <output-dir>/<slug>. The seven questions are asked on a
// terminal, in order, each defaulting as the spec says; a question answered by its flag is not
// asked. With --no-input, or when stdin is not a terminal, the flags and defaults are used as is.
import type { Command } from 'commander';
import { bind, optionalString, validity, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, envelope, printLine, type ExitCode } from '../../output.ts';
import { createProject } from '../../scaffold/project.ts';
import { flagKey, QUESTIONS, type Answers } from '../../scaffold/questions.ts';

export interface InitOptions {
  /** Answers given as flags, already checked. */
  given: Partial<Answers>;
  noInput: boolean;
  outputDir: string;
}

export function parse({ flags }: RawInput): InitOptions {
  const given: Partial<Answers> = {};
  for (const q of QUESTIONS) {
    const value = optionalString(flags[flagKey(q)]);
    if (value !== undefined) given[q.key] = q.check(value);
  }
  return { given, noInput: flags.input === false, outputDir: optionalString(flags.outputDir) ?? '.' };
}

export async function run(io: IO, options: InitOptions): Promise<ExitCode> {
  const interactive = io.isTTY && !options.noInput;
  const answers: Partial<Answers> = {};
  for (const q of QUESTIONS) {
    const given = options.given[q.key];
    if (given !== undefined) {
      answers[q.key] = given;
      continue;
    }
    const fallback = q.default(answers);
    answers[q.key] = interactive
      ? q.check(await io.prompt.input({ message: q.message, default: fallback, validate: (value) => validity(() => q.check(value)) }))
      : q.check(fallback);
  }
  const dir = createProject(options.outputDir, answers as Answers);
  printLine(io.stdout, envelope(true, `Project created in ${dir}`, { project_dir: dir }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  let command = parent
    .command('init')
    .description('create a TypeScript plugin project in <output-dir>/<slug> (asks seven questions on a terminal)')
    .option('--no-input', 'ask nothing: use the flags given and the defaults');
  for (const q of QUESTIONS) command = command.option(q.flag, `${q.message.toLowerCase()}`);
  return command.option('-o, --output-dir <dir>', 'where the project directory is created', '.').action(bind(session, { parse, run }));
}
