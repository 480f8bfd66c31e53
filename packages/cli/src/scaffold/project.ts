// Writes a new plugin project: the template files under packages/cli/templates/plugin with the
// answers filled in ({{key}}; `__package__` in a path is the package name), plus the manifest and
// package.json, which are built as JSON so no answer can break their syntax.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SDK_VERSION } from '@charta/plugin-sdk';
import { validateManifest, type ChartaManifest } from '@charta/plugin-sdk/manifest';
import { Failure, UsageError } from '../output.ts';
import type { Answers } from './questions.ts';

const TEMPLATE_DIR = fileURLToPath(new URL('../../templates/plugin/', import.meta.url));

/** Template files whose name cannot be kept as is (npm leaves `.gitignore` out of packages). */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

/** The directory of a package of this tool's own, which new projects depend on. */
function packageDirectory(name: string): string {
  return path.dirname(fileURLToPath(import.meta.resolve(`${name}/package.json`)));
}

/** The directory of the @charta/plugin-sdk this tool uses, which new projects depend on. */
export const sdkDirectory = (): string => packageDirectory('@charta/plugin-sdk');

export function manifestFor(answers: Answers): ChartaManifest {
  const manifest: ChartaManifest = {
    sdk_version: SDK_VERSION,
    plugin_version: answers.version,
    name: answers.project_slug,
    description: answers.project_short_description,
    components: {
      handlers: [
        {
          entry: `${answers.project_package_name}/handlers.js`,
          class: 'PlanCommittedHandler',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          description: 'Logs each committed plan and adds a follow-up instruction to its note.',
        },
      ],
    },
    // The names of the secrets the handlers read (this.secrets); values are set on the instance.
    secrets: [],
    readme: './README.md',
  };
  const checked = validateManifest(manifest);
  if (!checked.ok) throw new UsageError(`The answers do not make a valid manifest: ${checked.reasons.join('; ')}`);
  return manifest;
}

function packageJson(answers: Answers): object {
  return {
    name: answers.project_slug,
    private: true,
    description: answers.project_short_description,
    author: `${answers.full_name} <${answers.email}>`,
    type: 'module',
    scripts: {
      // Every handler call of the tests in the instance's sandbox (docs/plugins.md, "Testing a plugin").
      test: 'charta plugin test .',
      typecheck: 'tsc -p .',
      build: 'charta plugin build .',
      deploy: 'charta plugin install .',
    },
    devDependencies: {
      // Not on the npm registry yet: the SDK that came with this charta tool, and the wire
      // contract it is typed with.
      '@charta/api': `file:${packageDirectory('@charta/api')}`,
      '@charta/plugin-sdk': `file:${sdkDirectory()}`,
      '@types/node': '^20.19.0',
      tsx: '^4.20.0',
      typescript: '^5.9.0',
    },
  };
}

function fill(text: string, answers: Answers): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (Object.hasOwn(answers, key) ? answers[key as keyof Answers] : whole));
}

function templateFiles(dir = TEMPLATE_DIR, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const rel = prefix ? `${prefix}/${d.name}` : d.name;
    return d.isDirectory() ? templateFiles(path.join(dir, d.name), rel) : [rel];
  });
}

/** Every file of the new project, relative path → content. */
export function projectFiles(answers: Answers): Map<string, string> {
  const files = new Map<string, string>();
  for (const rel of templateFiles().sort()) {
    const target = (RENAMED[rel] ?? rel).replaceAll('__package__', answers.project_package_name);
    files.set(target, fill(fs.readFileSync(path.join(TEMPLATE_DIR, rel), 'utf8'), answers));
  }
  files.set('CHARTA_MANIFEST.json', `${JSON.stringify(manifestFor(answers), null, 2)}\n`);
  files.set('package.json', `${JSON.stringify(packageJson(answers), null, 2)}\n`);
  return files;
}

/**
 * Creates `<parent>/<slug>` and writes the project into it. The directory is claimed with one
 * mkdir, so an existing one (or one another process creates meanwhile) is refused untouched;
 * if writing fails half-way, what was written is removed again.
 */
export function createProject(parent: string, answers: Answers): string {
  const dir = path.resolve(parent, answers.project_slug);
  const files = projectFiles(answers);
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${dir} already exists; choose another slug or --output-dir`, { project_dir: dir });
    throw new Failure(`Cannot create ${dir}: ${(err as Error).message}`, { project_dir: dir });
  }
  try {
    for (const [rel, content] of files) {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content, { flag: 'wx' });
    }
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Failure(`Cannot write the project in ${dir}: ${(err as Error).message}`, { project_dir: dir });
  }
  return dir;
}
