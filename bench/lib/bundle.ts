// The server bundle the benchmark measures: the one bench/run.ts brought up to date when it
// started. run.ts passes its sources' digest, as recorded at the build, to its children
// (BENCH_SERVER_BUNDLE_DIGEST): a source edited since, by the next change being written while the
// bench runs, leaves that bundle in place, and the bench goes on measuring the code it started
// with instead of failing (the report names that commit). Without the digest, a stale bundle is
// refused, as before.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENTRIES, ROOT, sourcesFile } from '../../scripts/bundles.js';

export const BUNDLE_DIGEST_ENV = 'BENCH_SERVER_BUNDLE_DIGEST';

/** The digest the server bundle's sources file records (the sources it was built from); undefined without one. */
export function recordedServerDigest(): string | undefined {
  try {
    const recorded = JSON.parse(fs.readFileSync(path.join(ROOT, sourcesFile(ENTRIES.server.bundle)), 'utf8')) as { digest?: unknown };
    return typeof recorded.digest === 'string' ? recorded.digest : undefined;
  } catch {
    return undefined;
  }
}

/** The server bundle's URL when it is the one bench/run.ts built at its start, though a source changed since. */
export function bundleBuiltByThisRun(): string | undefined {
  const digest = process.env[BUNDLE_DIGEST_ENV];
  if (digest === undefined || digest !== recordedServerDigest()) return undefined;
  const file = path.join(ROOT, ENTRIES.server.bundle);
  return fs.existsSync(file) ? pathToFileURL(file).href : undefined;
}
