// Packs a project into `<dir>/dist/<slug>-<version>.tar.gz`: the project's files (hidden files
// and directories, node_modules, the top-level dist and anything that is not a regular file or
// directory left out) plus the bundled entries, at the archive's top level. The archive is
// reproducible: entries sorted, one fixed mtime, no owner names, modes 0644, gzip without a time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { BuildFailure, type Project } from './project.ts';

/** Every file time in a built package (the wheel format's epoch). */
const FIXED_MTIME = new Date('1980-01-01T00:00:00Z');

/** Project files that go into the package, as `/`-separated paths relative to the project. */
export function packagedFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (abs: string, rel: string): void => {
    for (const d of fs.readdirSync(abs, { withFileTypes: true })) {
      if (d.name.startsWith('.') || d.name === 'node_modules' || (rel === '' && d.name === 'dist')) continue;
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(path.join(abs, d.name), childRel);
      else if (d.isFile()) files.push(childRel);
      // symbolic links, sockets, FIFOs and devices are never packed
    }
  };
  walk(dir, '');
  return files.sort();
}

/** Writes the package and returns its path. */
export async function packProject(project: Project, bundles: Map<string, Uint8Array>): Promise<string> {
  const files = packagedFiles(project.dir);
  const clash = files.filter((f) => bundles.has(f));
  if (clash.length)
    throw new BuildFailure(
      'Cannot pack the project',
      clash.map((f) => `${f} exists and is also a bundled entry`),
      project.dir,
    );
  const names = [...files, ...bundles.keys()].sort();

  const distDir = path.join(project.dir, 'dist');
  const target = path.join(distDir, `${project.slug}-${project.manifest.plugin_version}.tar.gz`);
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-build-'));
  try {
    for (const name of files) copy(path.join(project.dir, name), path.join(staging, name));
    for (const [name, bytes] of bundles) write(path.join(staging, name), bytes);
    fs.mkdirSync(distDir, { recursive: true });
    const partial = `${target}.${process.pid}.partial`;
    try {
      await tar.create({ gzip: true, cwd: staging, file: partial, portable: true, noDirRecurse: true, mtime: FIXED_MTIME }, names);
      fs.renameSync(partial, target);
    } catch (err) {
      fs.rmSync(partial, { force: true });
      throw err;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

function copy(from: string, to: string): void {
  write(to, fs.readFileSync(from));
}

function write(file: string, bytes: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes, { mode: 0o644 });
  fs.chmodSync(file, 0o644);
}
