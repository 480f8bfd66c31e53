// Reads a plugin project directory for the build: its manifest, checked against the schema of
// @charta/plugin-sdk, and for each handler entry the source it is bundled from
// (`<entry>.js` ← `src/<entry>.ts`, .mts, .js or .mjs) or, without one, the ready-made file.
import fs from 'node:fs';
import path from 'node:path';
import { slugify } from '@charta/plugin-sdk';
import { MANIFEST_FILE_NAME, MANIFEST_MAX_BYTES, parseManifest, type ChartaManifest } from '@charta/plugin-sdk/manifest';
import { Failure } from '../output.ts';

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

export interface EntryPlan {
  /** The file in the package, as the manifest names it (`my_plugin/handlers.js`). */
  entry: string;
  /** The source bundled into it, relative to the project; null when the entry is shipped as is. */
  source: string | null;
  /** Exported names the manifest expects from it. */
  exports: string[];
}

export interface Project {
  dir: string;
  manifest: ChartaManifest;
  /** The plugin's name on the instance. */
  slug: string;
  entries: EntryPlan[];
}

/** A build that cannot go on: every reason found, as one failure line. */
export class BuildFailure extends Failure {
  constructor(summary: string, errors: string[], dir: string) {
    super(`${summary}: ${errors.join('; ')}`, { project_dir: dir, errors });
  }
}

const isFile = (file: string): boolean => fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;

function readManifest(dir: string): ChartaManifest {
  const file = path.join(dir, MANIFEST_FILE_NAME);
  let bytes: Buffer;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new BuildFailure('Not a plugin project', [`${MANIFEST_FILE_NAME} is not a file`], dir);
    if (stat.size > MANIFEST_MAX_BYTES)
      throw new BuildFailure('Invalid manifest', [`${MANIFEST_FILE_NAME} is larger than ${MANIFEST_MAX_BYTES / 1024} KiB`], dir);
    bytes = fs.readFileSync(file);
  } catch (err) {
    if (err instanceof BuildFailure) throw err;
    throw new BuildFailure('Not a plugin project', [`no ${MANIFEST_FILE_NAME} in ${dir}`], dir);
  }
  const result = parseManifest(bytes);
  if (!result.ok) throw new BuildFailure('Invalid manifest', result.reasons, dir);
  return result.manifest;
}

/** `handlers/vitals.js:VitalsHandler` → module and name; a bare name has no module. */
function splitClass(value: string | undefined): { module?: string; name?: string } {
  if (value === undefined) return {};
  const colon = value.lastIndexOf(':');
  return colon < 0 ? { name: value } : { module: value.slice(0, colon), name: value.slice(colon + 1) };
}

export function readProject(dir: string): Project {
  const manifest = readManifest(dir);
  const errors: string[] = [];
  const byEntry = new Map<string, EntryPlan>();
  manifest.components.handlers.forEach((handler, i) => {
    const { module, name } = splitClass(handler.class);
    const entry = (handler.entry ?? module)?.replace(/^\.\//, '');
    if (entry === undefined || !/\.(js|mjs|cjs)$/.test(entry)) {
      errors.push(`handler ${i}: give an "entry", the bundled .js file the build writes (such as my_plugin/handlers.js)`);
      return;
    }
    const plan = byEntry.get(entry) ?? { entry, source: null, exports: [] };
    if (name !== undefined && !plan.exports.includes(name)) plan.exports.push(name);
    byEntry.set(entry, plan);
  });
  for (const plan of byEntry.values()) {
    const stem = plan.entry.replace(/\.(js|mjs|cjs)$/, '');
    const candidates = SOURCE_EXTENSIONS.map((ext) => `src/${stem}${ext}`);
    const found = candidates.filter((c) => isFile(path.join(dir, c)));
    const shipped = isFile(path.join(dir, plan.entry));
    if (found.length > 1) errors.push(`entry ${plan.entry}: several sources (${found.join(', ')}); keep one`);
    else if (found.length === 1 && shipped)
      errors.push(`entry ${plan.entry}: both ${found[0]} and a file ${plan.entry} exist; the bundle of ${found[0]} would replace it`);
    else if (found.length === 1) plan.source = found[0]!;
    else if (!shipped) errors.push(`entry ${plan.entry}: no source found (looked for ${candidates.join(', ')})`);
  }
  if (errors.length) throw new BuildFailure('Cannot build the project', errors, dir);
  return { dir, manifest, slug: slugify(manifest.name), entries: [...byEntry.values()] };
}
