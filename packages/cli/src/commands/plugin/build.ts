// charta plugin build [dir]
// Builds a plugin project without uploading it: validates CHARTA_MANIFEST.json, bundles each
// handler entry with esbuild and packs <dir>/dist/<slug>-<version>.tar.gz (what `plugin install
// <dir>` uploads). Local only: needs no host or key.
import fs from 'node:fs';
import type { Command } from 'commander';
import { buildProject } from '../../packaging/index.ts';
import { bind, optionalString, type RawInput, type Session } from '../../command.ts';
import type { IO } from '../../io.ts';
import { EXIT, envelope, printLine, UsageError, type ExitCode } from '../../output.ts';

export interface BuildOptions {
  dir: string;
}

export function parse({ args }: RawInput): BuildOptions {
  const dir = optionalString(args[0]) ?? '.';
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) throw new UsageError(`Not a directory: ${dir}`, { path: dir });
  return { dir };
}

export async function run(io: IO, options: BuildOptions): Promise<ExitCode> {
  const built = await buildProject(options.dir);
  printLine(io.stdout, envelope(true, `Built ${built.file}`, { package: built.file, name: built.name, version: built.version }));
  return EXIT.ok;
}

export function register(parent: Command, session: Session): Command {
  return parent
    .command('build')
    .description('build a plugin project into <dir>/dist/<slug>-<version>.tar.gz without uploading it')
    .argument('[dir]', 'the project directory', '.')
    .action(bind(session, { parse, run }));
}
