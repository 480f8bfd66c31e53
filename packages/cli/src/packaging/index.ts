// Building a plugin project: read and check it, bundle its handler entries, pack the package.
import path from 'node:path';
import { bundleEntries } from './bundle.ts';
import { packProject } from './pack.ts';
import { readProject } from './project.ts';

export interface Built {
  /** The package written, `<dir>/dist/<slug>-<version>.tar.gz`. */
  file: string;
  name: string;
  version: string;
}

export async function buildProject(dir: string): Promise<Built> {
  const project = readProject(path.resolve(dir));
  const bundles = await bundleEntries(project);
  const file = await packProject(project, bundles);
  return { file, name: project.slug, version: project.manifest.plugin_version };
}
