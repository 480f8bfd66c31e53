// An uploaded package, inspected before anything is stored: its metadata, checksum and bytes,
// or a 400/413 problem listing every reason it was refused.
import crypto from 'node:crypto';
import { problem } from '../http/problem.ts';
import { inspectPackage, type InspectionLimits, type PackageMetadata } from './inspection/index.ts';

export interface CheckedPackage {
  metadata: PackageMetadata;
  checksum: string;
  bytes: Buffer;
}

/** An upload's package file: its bytes and the file name it was sent under. */
export interface UploadedFile {
  bytes: Buffer;
  fileName: string;
}

export async function checkPackage(file: UploadedFile | undefined, limits?: Partial<InspectionLimits>): Promise<CheckedPackage> {
  if (file === undefined) throw problem('plugin_package_missing');
  const { bytes, fileName } = file;
  const inspection = await inspectPackage(bytes, limits, fileName);
  if (!inspection.ok) {
    const errors = inspection.reasons.map((message) => ({ field: 'package', message }));
    throw problem(inspection.tooLarge ? 'plugin_package_too_large' : 'plugin_package_invalid', {
      detail: `The package was refused: ${inspection.reasons.join('; ')}`,
      errors,
    });
  }
  return { metadata: inspection.metadata, checksum: crypto.createHash('sha256').update(bytes).digest('hex'), bytes };
}

/** The columns a checked package sets on its plugin's row, on install as on update. */
export function packageColumns(pkg: CheckedPackage) {
  return {
    description: pkg.metadata.description,
    version: pkg.metadata.version,
    format: pkg.metadata.format,
    checksum: pkg.checksum,
    package: pkg.bytes,
  };
}
