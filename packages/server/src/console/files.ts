// The built console (docs/console.md, "How it is built and served"): every file of the build
// read once into memory when the server starts, each with its type, its cache lifetime and a
// gzipped copy. Only these files are ever served, by exact path: no directory listing, and
// nothing outside the build can be named (no path traversal to guard against).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export interface ConsoleFile {
  body: Buffer;
  /** The gzipped body, when it is smaller. */
  gzip: Buffer | undefined;
  contentType: string;
  /** Hashed assets (under assets/) never change: cached for a year; the rest is revalidated. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The largest build this reads (a guard against pointing CHARTA_CONSOLE_DIR at the wrong tree). */
const MAX_FILES = 200;
const MAX_TOTAL_BYTES = 20 * 1024 * 1024;

/** The files of the build at `dir`, by path relative to it (`index.html`, `assets/index-3f2a.js`); undefined when it has no index.html. */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> | undefined {
  if (!fs.existsSync(path.join(dir, 'index.html'))) return undefined;
  const files = new Map<string, ConsoleFile>();
  let total = 0;
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      if (!entry.isFile()) continue;
      const contentType = TYPES[path.extname(entry.name).toLowerCase()];
      if (contentType === undefined) continue; // source maps and anything unexpected stay unserved
      const body = fs.readFileSync(path.join(dir, name));
      total += body.length;
      if (files.size >= MAX_FILES || total > MAX_TOTAL_BYTES)
        throw new Error(`the console build at ${dir} is larger than ${MAX_FILES} files or ${MAX_TOTAL_BYTES} bytes`);
      const compressible = !/^image\/png|^image\/x-icon|^font\//.test(contentType);
      const gzip = compressible ? zlib.gzipSync(body, { level: 9 }) : undefined;
      files.set(name, { body, gzip: gzip !== undefined && gzip.length < body.length ? gzip : undefined, contentType, immutable: name.startsWith('assets/') });
    }
  };
  walk('');
  return files;
}
