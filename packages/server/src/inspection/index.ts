// Package inspection: decides, before anything is stored, whether an uploaded plugin package is
// acceptable, and reads its name, version and description. The kind is told by content (zip
// magic → wheel, gzip magic → tar.gz) and must be the one the upload's file name names
// (docs/plugin-manifest.md), every entry is checked, every limit is counted on bytes
// actually inflated, and all the reasons found are returned together. Never writes to disk and
// never throws for bad input.
import { Scan } from './entries.ts';
import { formatBytes, resolveLimits, type InspectionLimits } from './limits.ts';
import { resolveMetadata, type PackageFormat, type PackageMetadata } from './metadata.ts';
import { scanTarGz } from './tar-gz.ts';
import { scanZip } from './zip.ts';

export { DEFAULT_LIMITS, RATIO_GRACE_BYTES, MAX_REASONS, type InspectionLimits } from './limits.ts';
export { NO_METADATA, nothingToRunReason, type MetadataSource, type PackageFormat, type PackageMetadata } from './metadata.ts';

export type Inspection =
  | { ok: true; metadata: PackageMetadata }
  /** `tooLarge`: only the upload's own size was over its limit (→ HTTP 413 rather than 400). */
  | { ok: false; reasons: string[]; tooLarge: boolean };

export const NOT_AN_ARCHIVE = 'not a wheel (zip) or a gzip-compressed tar archive';

/** The package's kind from its first bytes, whatever its file name says. */
export function sniffFormat(bytes: Buffer): PackageFormat | null {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return 'wheel';
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  return null;
}

/** The kind a file name names: `.whl` a wheel, `.tar.gz` or `.tgz` a gzip-compressed tarball; null for any other name. */
export function formatOfFileName(fileName: string): PackageFormat | null {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.whl')) return 'wheel';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  return null;
}

const KIND_NAME: Record<PackageFormat, string> = { wheel: 'a wheel (zip)', 'tar.gz': 'a gzip-compressed tar archive' };

/** Why the file name and the content disagree, or null when they agree. */
function fileNameProblem(fileName: string, format: PackageFormat): string | null {
  const named = formatOfFileName(fileName);
  const shown = JSON.stringify(fileName.slice(0, 200));
  if (named === null) return `the file name ${shown} names neither a wheel (.whl) nor a gzip-compressed tarball (.tar.gz); the content is ${KIND_NAME[format]}`;
  if (named !== format) return `the file name ${shown} names ${KIND_NAME[named]}, but the content is ${KIND_NAME[format]}`;
  return null;
}

const rejected = (reasons: string[], tooLarge = false): Inspection => ({ ok: false, reasons, tooLarge });

/** `fileName`: the name the upload gave the file; when given, its kind must be the content's. */
export async function inspectPackage(bytes: Buffer, limits?: Partial<InspectionLimits>, fileName?: string): Promise<Inspection> {
  try {
    const input: unknown = bytes;
    if (!Buffer.isBuffer(input)) {
      // Callers in plain JS may hand over anything; a Uint8Array is as good as a Buffer.
      if (!(input instanceof Uint8Array)) return rejected(['no package was sent']);
      bytes = Buffer.from(input);
    }
    const resolved = resolveLimits(limits);
    if (bytes.length > resolved.maxCompressedBytes) {
      return rejected([`the package is ${bytes.length} bytes, more than the limit of ${formatBytes(resolved.maxCompressedBytes)}`], true);
    }
    const format = sniffFormat(bytes);
    if (!format) return rejected([NOT_AN_ARCHIVE]);
    const misnamed = fileName === undefined ? null : fileNameProblem(fileName, format);
    if (misnamed !== null) return rejected([misnamed]);
    const scan = new Scan(resolved, bytes.length);
    if (format === 'wheel') await scanZip(bytes, scan);
    else await scanTarGz(bytes, scan);
    scan.settle();
    // After a limit or a corrupt archive the listing is incomplete: missing metadata would be noise.
    if (!scan.stopped) {
      const result = resolveMetadata(scan, format);
      if (!result.ok) for (const reason of result.reasons) scan.reason(reason);
      else if (!scan.failed) return { ok: true, metadata: result.metadata };
    }
    return rejected(scan.reasons);
  } catch (err) {
    // A bug or an exotic failure inside a reader: still an answer, never an exception.
    return rejected([`the package could not be inspected: ${err instanceof Error ? err.message : String(err)}`]);
  }
}

/** Files read whole out of a package; `overBudget`: files that were there but did not fit in the budget. */
export type PackageFiles = { ok: true; files: Map<string, Buffer>; overBudget: string[] } | { ok: false; reasons: string[] };

/**
 * Reads the files at `paths` (normalised, `/`-separated, as in the archive) out of a package,
 * keeping at most `maxBytes` of them in all, under the same entry rules and limits as
 * inspectPackage. A path not in the package is simply absent from `files`.
 */
export async function readPackageFiles(bytes: Buffer, paths: ReadonlySet<string>, maxBytes: number, limits?: Partial<InspectionLimits>): Promise<PackageFiles> {
  try {
    const resolved = resolveLimits(limits);
    if (bytes.length > resolved.maxCompressedBytes) return { ok: false, reasons: [`the package is larger than ${formatBytes(resolved.maxCompressedBytes)}`] };
    const format = sniffFormat(bytes);
    if (!format) return { ok: false, reasons: [NOT_AN_ARCHIVE] };
    const scan = new Scan(resolved, bytes.length, { paths, maxBytes });
    if (format === 'wheel') await scanZip(bytes, scan);
    else await scanTarGz(bytes, scan);
    scan.settle();
    if (scan.failed) return { ok: false, reasons: scan.reasons };
    const files = new Map<string, Buffer>();
    const overBudget: string[] = [];
    for (const [path, capture] of scan.kept) {
      if (capture.truncated) overBudget.push(path);
      else files.set(path, capture.bytes);
    }
    return { ok: true, files, overBudget };
  } catch (err) {
    return { ok: false, reasons: [`the package could not be read: ${err instanceof Error ? err.message : String(err)}`] };
  }
}
