// Turns the metadata files a scan kept (CHARTA_MANIFEST.json, PKG-INFO, *.dist-info/METADATA,
// the original tool's CANVAS_MANIFEST.json) into the package's name, version and description,
// or into the reasons it has none (docs/plugin-manifest.md).
import { CANVAS_MANIFEST_FILE_NAME, pathSegments, quote, type Capture, type Scan } from './entries.ts';
import { slugify } from '@charta/plugin-sdk';
import { MANIFEST_FILE_NAME, parseManifest, type ChartaManifest } from '@charta/plugin-sdk/manifest';
import { formatBytes } from './limits.ts';

export type PackageFormat = 'wheel' | 'tar.gz';

export interface PackageMetadata {
  /** The plugin's name as a slug: lower case, runs of anything but [a-z0-9] → '-', trimmed. */
  name: string;
  version: string;
  description: string;
  format: PackageFormat;
  source: 'manifest' | 'pkg-info' | 'canvas-manifest';
  /** The manifest, when the metadata comes from one. */
  manifest?: ChartaManifest;
  /** Directory of the archive the metadata file sits in ('' for the top level). */
  root: string;
  /** Regular files in the archive. */
  files: number;
  /** Bytes inflated while reading the archive. */
  inflatedBytes: number;
}

export type MetadataSource = PackageMetadata['source'];

/**
 * Why a package whose metadata comes from `source` can never run here, or null when it can (a
 * Charta manifest): PKG-INFO and CANVAS_MANIFEST.json are the original tool's Python packages,
 * accepted (listed, enabled) but with nothing Charta can run (docs/plugins.md).
 */
export function nothingToRunReason(source: string): string | null {
  if (source === 'manifest') return null;
  const file = source === 'pkg-info' ? 'PKG-INFO' : CANVAS_MANIFEST_FILE_NAME;
  return `a Python package for the original tool (its metadata is ${file}); it has nothing Charta can run`;
}

export const NO_METADATA = `no CHARTA_MANIFEST.json, PKG-INFO or *.dist-info/METADATA found, nor a ${CANVAS_MANIFEST_FILE_NAME}`;

/**
 * The header fields of an RFC 822 message (PKG-INFO and METADATA are written that way): up to
 * the first empty line, continuation lines folded in, names lower-cased, first occurrence wins.
 * If the text was cut short, its last (possibly partial) line is ignored.
 */
export function parseRfc822Headers(text: string, truncated = false): Map<string, string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  if (truncated) lines.pop();
  const headers = new Map<string, string>();
  let current: string | null = null;
  for (const line of lines) {
    if (line === '') break;
    if (/^[ \t]/.test(line)) {
      if (current !== null) headers.set(current, `${headers.get(current)} ${line.trim()}`.trim());
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) {
      current = null;
      continue;
    }
    const name = line.slice(0, colon).trim().toLowerCase();
    if (headers.has(name)) {
      current = null;
      continue;
    }
    current = name;
    headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

const dirOf = (capture: Capture) => capture.segments.slice(0, -1).join('/');

/** The one file to read among `captures`: the shallowest; several at that depth are a reason. */
function pick(captures: Capture[], label: string, reasons: string[]): Capture | null {
  if (captures.length === 0) return null;
  const depth = Math.min(...captures.map((c) => c.segments.length));
  const shallowest = captures.filter((c) => c.segments.length === depth);
  if (shallowest.length > 1) {
    reasons.push(`several ${label} files found (${shallowest.map((c) => quote(c.path)).join(', ')}); a package has one`);
    return null;
  }
  return shallowest[0]!;
}

/** Handler entry files the manifest names that the package does not contain. */
function missingEntries(manifest: ChartaManifest, root: string, files: Set<string>): string[] {
  const reasons: string[] = [];
  manifest.components.handlers.forEach((handler, i) => {
    if (handler.entry === undefined) return;
    const path = [...pathSegments(root), ...pathSegments(handler.entry)].join('/');
    if (!files.has(path)) {
      reasons.push(`${MANIFEST_FILE_NAME}: /components/handlers/${i}/entry ${quote(handler.entry)} is not a file in the package`);
    }
  });
  return reasons;
}

type Result = { ok: true; metadata: PackageMetadata } | { ok: false; reasons: string[] };

function fromManifest(scan: Scan, format: PackageFormat): Result {
  const manifests = scan.captures.manifest;
  if (manifests.length > 1) {
    return {
      ok: false,
      reasons: [`several ${MANIFEST_FILE_NAME} files found (${manifests.map((c) => quote(c.path)).join(', ')}); a package has one`],
    };
  }
  const capture = manifests[0]!;
  if (capture.truncated) {
    return {
      ok: false,
      reasons: [`${MANIFEST_FILE_NAME}: larger than ${formatBytes(scan.limits.maxManifestBytes)} (the limit)`],
    };
  }
  const parsed = parseManifest(capture.bytes);
  if (!parsed.ok) return parsed;
  const { manifest } = parsed;
  const root = dirOf(capture);
  const reasons = missingEntries(manifest, root, scan.filePaths);
  const name = slugify(manifest.name);
  if (!name) reasons.push(`${MANIFEST_FILE_NAME}: /name has no letters or digits`);
  if (reasons.length) return { ok: false, reasons };
  return {
    ok: true,
    metadata: {
      name,
      version: manifest.plugin_version,
      description: manifest.description,
      format,
      source: 'manifest',
      manifest,
      root,
      files: scan.files,
      inflatedBytes: scan.inflated,
    },
  };
}

/** Name, version and description read from a Python-style metadata file, checked alike whichever file they come from. */
function pythonStyle(
  capture: Capture,
  scan: Scan,
  format: PackageFormat,
  source: PackageMetadata['source'],
  fields: { label: string; rawName: string; version: string; description: string; nameKey: string; versionKey: string },
): Result {
  const { label, rawName, version, nameKey, versionKey } = fields;
  const reasons: string[] = [];
  const name = slugify(rawName);
  if (!rawName) reasons.push(`${label}: no ${nameKey}`);
  else if (!name) reasons.push(`${label}: the ${nameKey} ${quote(rawName)} has no letters or digits`);
  if (!version) reasons.push(`${label}: no ${versionKey}`);
  else if (version.length > 64 || !/^[\x21-\x7e]+$/.test(version)) reasons.push(`${label}: the ${versionKey} ${quote(version)} is not a version`);
  if (reasons.length) return { ok: false, reasons };
  return {
    ok: true,
    metadata: { name, version, description: fields.description, format, source, root: dirOf(capture), files: scan.files, inflatedBytes: scan.inflated },
  };
}

function fromPythonMetadata(capture: Capture, label: string, scan: Scan, format: PackageFormat): Result {
  const headers = parseRfc822Headers(capture.bytes.toString('utf8'), capture.truncated);
  return pythonStyle(capture, scan, format, 'pkg-info', {
    label,
    rawName: headers.get('name') ?? '',
    version: headers.get('version') ?? '',
    description: headers.get('summary') ?? '',
    nameKey: 'Name header',
    versionKey: 'Version header',
  });
}

/** The original tool's CANVAS_MANIFEST.json: only `name`, `plugin_version` and `description` are read. */
function fromCanvasManifest(capture: Capture, scan: Scan, format: PackageFormat): Result {
  const label = capture.path;
  if (capture.truncated) return { ok: false, reasons: [`${label}: larger than ${formatBytes(scan.limits.maxManifestBytes)} (the limit)`] };
  let value: unknown;
  try {
    value = JSON.parse(capture.bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    return { ok: false, reasons: [`${label}: not valid JSON (${err instanceof Error ? err.message : String(err)})`] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reasons: [`${label}: not a JSON object`] };
  const text = (key: string) => {
    const v = (value as Record<string, unknown>)[key];
    return typeof v === 'string' ? v.trim() : '';
  };
  return pythonStyle(capture, scan, format, 'canvas-manifest', {
    label,
    rawName: text('name'),
    version: text('plugin_version'),
    description: text('description'),
    nameKey: '/name (a string)',
    versionKey: '/plugin_version (a string)',
  });
}

/**
 * The package's metadata from the files the scan kept: the manifest if there is one (a broken
 * manifest is never skipped in favour of PKG-INFO), else PKG-INFO / METADATA, the wheel's own
 * METADATA first for a wheel and PKG-INFO first for a tarball, else CANVAS_MANIFEST.json.
 */
export function resolveMetadata(scan: Scan, format: PackageFormat): Result {
  if (scan.captures.manifest.length) return fromManifest(scan, format);
  const reasons: string[] = [];
  const pkgInfo = () => pick(scan.captures.pkgInfo, 'PKG-INFO', reasons);
  const metadata = () => pick(scan.captures.metadata, '*.dist-info/METADATA', reasons);
  const order = format === 'wheel' ? [metadata, pkgInfo] : [pkgInfo, metadata];
  for (const find of order) {
    const capture = find();
    if (reasons.length) return { ok: false, reasons };
    if (capture) {
      return fromPythonMetadata(capture, capture.path, scan, format);
    }
  }
  // Packages of later versions of the original tool carry only CANVAS_MANIFEST.json.
  const canvas = pick(scan.captures.canvas, CANVAS_MANIFEST_FILE_NAME, reasons);
  if (reasons.length) return { ok: false, reasons };
  if (canvas) return fromCanvasManifest(canvas, scan, format);
  return { ok: false, reasons: [NO_METADATA] };
}
