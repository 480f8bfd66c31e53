// The seven questions of `charta plugin init`, in the order they are asked, each with its flag,
// its default (which may depend on earlier answers) and the check its answer must pass.
import { slugify } from '@charta/plugin-sdk';
import { MANIFEST_FORMATS } from '@charta/plugin-sdk/manifest';
import { UsageError } from '../output.ts';

export interface Answers {
  full_name: string;
  email: string;
  version: string;
  project_name: string;
  project_slug: string;
  project_package_name: string;
  project_short_description: string;
}

export type AnswerKey = keyof Answers;

export interface Question {
  key: AnswerKey;
  /** The commander option, e.g. `--full-name <name>`. */
  flag: string;
  message: string;
  default(earlier: Partial<Answers>): string;
  /** Returns the answer as it will be used (trimmed) or throws a UsageError saying what is wrong. */
  check(value: string): string;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

function text(label: string, max: number, { allowEmpty = false } = {}) {
  return (value: string): string => {
    const v = value.trim();
    if (!allowEmpty && v === '') throw new UsageError(`${label} is empty`);
    if (v.length > max) throw new UsageError(`${label} is longer than ${max} characters`);
    if (CONTROL.test(v)) throw new UsageError(`${label} contains control characters`);
    return v;
  };
}

function pattern(label: string, max: number, re: RegExp, shape: string) {
  const base = text(label, max);
  return (value: string): string => {
    const v = base(value);
    if (!re.test(v)) throw new UsageError(`${label} ${JSON.stringify(v)} must be ${shape}`);
    return v;
  };
}

export const QUESTIONS: readonly Question[] = [
  { key: 'full_name', flag: '--full-name <name>', message: 'Your full name', default: () => 'Plugin Developer', check: text('The full name', 100) },
  {
    key: 'email',
    flag: '--email <address>',
    message: 'Your email address',
    default: () => 'developer@email.com',
    check: pattern('The email address', 254, /^[^\s@<>",]+@[^\s@<>",]+$/, 'an address such as developer@example.com'),
  },
  {
    key: 'version',
    flag: '--version <version>',
    message: "The plugin's first version",
    default: () => '0.1.0',
    check: pattern('The version', 64, new RegExp(MANIFEST_FORMATS.version.pattern), MANIFEST_FORMATS.version.description),
  },
  { key: 'project_name', flag: '--project-name <name>', message: 'Project name', default: () => 'Plugin Boilerplate', check: text('The project name', 64) },
  {
    key: 'project_slug',
    flag: '--project-slug <slug>',
    message: 'Project slug (the directory, and the plugin name on the instance)',
    default: (a) => slugify(a.project_name ?? ''),
    check: pattern('The project slug', 64, /^[a-z0-9]+(-[a-z0-9]+)*$/, "lower-case letters and digits in words joined by '-', such as my-plugin"),
  },
  {
    key: 'project_package_name',
    flag: '--project-package-name <name>',
    message: 'Package name (the folder of your handlers under src/)',
    default: (a) => (a.project_slug ?? '').replaceAll('-', '_'),
    check: pattern('The package name', 64, /^[a-z_][a-z0-9_]*$/, "lower-case letters, digits and '_', not starting with a digit, such as my_plugin"),
  },
  {
    key: 'project_short_description',
    flag: '--project-short-description <text>',
    message: 'A short description',
    default: () => 'A plugin to interact with a Charta instance',
    check: text('The description', 500, { allowEmpty: true }),
  },
];

/** The commander option name of a question (`--full-name` → `fullName`). */
export function flagKey(question: Question): string {
  const long = question.flag.split(' ')[0]!.replace(/^--/, '');
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
