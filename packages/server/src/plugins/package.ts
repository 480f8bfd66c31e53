// An uploaded package, inspected before anything is stored: its metadata, checksum and bytes,
// or a 400/413 problem listing every reason it was refused. Install and update also hand it to
// the plugin runtime, which loads it in the sandbox (docs/plugins.md, "The install check").
import crypto from 'node:crypto';
import { problem } from '../http/problem.ts';
import type { PluginRuntime } from '../runtime/types.ts';
import type { PluginSurface } from '../runtime/surface.ts';
import { inspectPackage, type InspectionLimits, type PackageMetadata } from '../inspection/index.ts';

export interface CheckedPackage {
  metadata: PackageMetadata;
  /** The routes and schedules its handler classes declare (none before the runtime checked it). */
  surface: PluginSurface;
  checksum: string;
  bytes: Buffer;
}

/** An upload's package file: its bytes and the file name it was sent under. */
export interface UploadedFile {
  bytes: Buffer;
  fileName: string;
}

/**
 * `runtime`: given by install and update (not by extract-metadata), whose package must also load
 * and run in the sandbox; every reason it cannot is in the same 400 problem.
 */
export async function checkPackage(
  file: UploadedFile | undefined,
  runtime?: Pick<PluginRuntime, 'checkPackage'>,
  limits?: Partial<InspectionLimits>,
): Promise<CheckedPackage> {
  if (file === undefined) throw problem('plugin_package_missing');
  const { bytes, fileName } = file;
  const inspection = await inspectPackage(bytes, limits, fileName);
  if (!inspection.ok) throw refused(inspection.reasons, inspection.tooLarge);
  const { metadata } = inspection;
  let surface: PluginSurface = { routes: [], schedules: [] };
  if (runtime !== undefined) {
    // Inspected under the default limits, as the runtime would: it need not inspect it again.
    const inspected = limits === undefined ? { metadata } : {};
    const checked = await runtime.checkPackage({ name: metadata.name, format: metadata.format, source: metadata.source, bytes, ...inspected });
    if (checked.reasons.length) throw refused(checked.reasons, false);
    surface = checked.surface;
  }
  return { metadata, surface, checksum: crypto.createHash('sha256').update(bytes).digest('hex'), bytes };
}

function refused(reasons: string[], tooLarge: boolean) {
  return problem(tooLarge ? 'plugin_package_too_large' : 'plugin_package_invalid', {
    detail: `The package was refused: ${reasons.join('; ')}`,
    errors: reasons.map((message) => ({ field: 'package', message })),
  });
}

/** The columns a checked package sets on its plugin's row, on install as on update. */
export function packageColumns(pkg: CheckedPackage) {
  return {
    description: pkg.metadata.description,
    version: pkg.metadata.version,
    format: pkg.metadata.format,
    checksum: pkg.checksum,
    package: pkg.bytes,
    data_access: JSON.stringify(pkg.metadata.manifest?.data ?? {}),
    routes: JSON.stringify(pkg.surface.routes),
    schedules: JSON.stringify(pkg.surface.schedules),
    metadata_source: pkg.metadata.source,
  };
}
