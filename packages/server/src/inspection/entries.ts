// What both archive readers report to: one Scan per package collects the reasons to reject it,
// applies the entry rules (paths, kinds, duplicates) and the limits, and keeps the few small
// files the metadata comes from. The readers only translate their format into these calls.
import crypto from 'node:crypto';
import { MANIFEST_FILE_NAME } from '@charta/plugin-sdk/manifest';
import { formatBytes, MAX_REASONS, RATIO_GRACE_BYTES, type InspectionLimits } from './limits.ts';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'other';

/** A metadata file kept in memory while the archive streams past (at most `cap` bytes of it). */
export class Capture {
  readonly chunks: Buffer[] = [];
  /** Bytes actually read for this entry, also beyond the cap. */
  size = 0;
  private stored = 0;
  constructor(
    readonly path: string,
    readonly segments: string[],
    private readonly cap: number,
  ) {}

  write(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.stored >= this.cap) return;
    const part = chunk.length > this.cap - this.stored ? chunk.subarray(0, this.cap - this.stored) : chunk;
    this.chunks.push(Buffer.from(part));
    this.stored += part.length;
  }

  /** Bytes kept in memory. */
  get storedBytes(): number {
    return this.stored;
  }

  get truncated(): boolean {
    return this.size > this.cap;
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Where a reader writes a file entry's content as it inflates. */
export interface EntrySink {
  write(chunk: Buffer): void;
}

/**
 * A regular file's content as it streams past: hashed (so that a second entry for its path can be
 * told identical or not), and kept in memory when it is a metadata file or a file asked for.
 */
class FileContent implements EntrySink {
  private readonly hash = crypto.createHash('sha256');
  private digested: string | undefined;
  constructor(readonly capture: Capture | null) {}

  write(chunk: Buffer): void {
    this.hash.update(chunk);
    this.capture?.write(chunk);
  }

  /** The sha256 of everything written (no more may be written after). */
  get digest(): string {
    this.digested ??= this.hash.digest('hex');
    return this.digested;
  }
}

/** An entry name as shown in a reason: quoted, with control characters escaped. */
export function quote(name: string): string {
  return JSON.stringify(name);
}

/** Problems with an entry's name as written in the archive, whatever its kind. */
export function nameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.includes('\0')) problems.push('contains a NUL character');
  if (/^[/\\]/.test(name) || /^[A-Za-z]:/.test(name)) problems.push('is an absolute path');
  if (name.split(/[/\\]/).includes('..')) problems.push("contains a '..' segment");
  return problems;
}

/** "./a//b/./c/" → ["a", "b", "c"]; both separators count, as some extractors treat '\' as one. */
export function pathSegments(name: string): string[] {
  return name.split(/[/\\]/).filter((s) => s !== '' && s !== '.');
}

/** The manifest of later versions of the original tool (docs/plugin-manifest.md). */
export const CANVAS_MANIFEST_FILE_NAME = 'CANVAS_MANIFEST.json';

/** Which metadata file an entry could be, by its place in the archive. */
function candidateKind(segments: string[]): 'manifest' | 'pkg-info' | 'metadata' | 'canvas' | null {
  const last = segments[segments.length - 1];
  // The original tool's manifest sits in the package's folder, one level down in an sdist: `<name>-<version>/<pkg>/`.
  if (segments.length <= 3 && last === CANVAS_MANIFEST_FILE_NAME) return 'canvas';
  if (segments.length > 2) return null;
  if (last === MANIFEST_FILE_NAME) return 'manifest';
  if (last === 'PKG-INFO') return 'pkg-info';
  if (segments.length === 2 && last === 'METADATA' && segments[0]!.endsWith('.dist-info')) return 'metadata';
  return null;
}

const KIND_PROBLEM: Record<Exclude<EntryKind, 'file' | 'directory' | 'other'>, string> = {
  symlink: 'is a symbolic link; links are not allowed',
  hardlink: 'is a hard link; links are not allowed',
  device: 'is a device file; only regular files and directories are allowed',
  fifo: 'is a FIFO; only regular files and directories are allowed',
};

export class Scan {
  private readonly found: string[] = [];
  private dropped = 0;
  /** Set when a limit is exceeded or the archive is unreadable: the reader stops at once. */
  stopped = false;
  entries = 0;
  files = 0;
  inflated = 0;
  /** Normalised paths of the regular files accepted so far. */
  readonly filePaths = new Set<string>();
  readonly captures = { manifest: [] as Capture[], pkgInfo: [] as Capture[], metadata: [] as Capture[], canvas: [] as Capture[] };
  /** Files kept whole (up to a shared budget) because the caller asked for them: the handler modules. */
  readonly kept = new Map<string, Capture>();
  /** Each normalised path seen: the kind of its first entry ('bad' when that one broke a rule), and a file's content. */
  private readonly seen = new Map<string, { kind: EntryKind | 'bad'; content?: FileContent }>();
  /** Second (third…) entries of a file's path, to be compared with the first once all is read (settle). */
  private readonly repeats: Array<{ name: string; path: string; first: FileContent; again: FileContent }> = [];

  constructor(
    readonly limits: InspectionLimits,
    readonly compressedBytes: number,
    /** Normalised paths of files to keep, and the most bytes kept in all. */
    private readonly keep?: { paths: ReadonlySet<string>; maxBytes: number },
  ) {}

  reason(text: string): void {
    if (this.found.length < MAX_REASONS) {
      if (!this.found.includes(text)) this.found.push(text);
    } else this.dropped++;
  }

  /** A reason that ends the reading (limit exceeded, archive unreadable). */
  fail(text: string): void {
    this.reason(text);
    this.stopped = true;
  }

  get reasons(): string[] {
    return this.dropped ? [...this.found, `… and ${this.dropped} more problems`] : [...this.found];
  }

  get failed(): boolean {
    return this.found.length > 0;
  }

  /**
   * Registers one archive entry. `otherNames` are further names the same entry goes by (a zip's
   * local header or Unicode-path field); they must pass the name rules too. `typeLabel` names an
   * 'other' kind in the reason. Returns where to write a regular file's content, else null (the
   * reader still reads and counts the content).
   *
   * A second entry for a file's path is accepted when it is a regular file with the same bytes
   * (packages of the original tool from about October 2024 to February 2026 hold every file of a
   * subfolder twice; docs/plugin-manifest.md, "Package rules"): one is kept, the other only read,
   * compared and counted against the limits (its entry and its inflated bytes). A directory named
   * twice is harmless. Any other second entry for a path is refused, naming the path.
   */
  addEntry(name: string, kind: EntryKind, options: { otherNames?: string[]; typeLabel?: string } = {}): EntrySink | null {
    if (this.stopped) return null;
    this.entries++;
    if (this.entries > this.limits.maxEntries) {
      this.fail(`the package has more than ${this.limits.maxEntries} entries (the limit)`);
      return null;
    }
    const q = quote(name);
    let bad = false;
    for (const n of [name, ...(options.otherNames ?? [])]) {
      for (const problem of nameProblems(n)) {
        this.reason(`entry ${n === name ? q : `${q} (also named ${quote(n)})`} ${problem}`);
        bad = true;
      }
    }
    if (kind === 'other') {
      this.reason(`entry ${q} is of type ${options.typeLabel ?? 'unknown'}; only regular files and directories are allowed`);
      bad = true;
    } else if (kind !== 'file' && kind !== 'directory') {
      this.reason(`entry ${q} ${KIND_PROBLEM[kind]}`);
      bad = true;
    }
    const segments = pathSegments(name);
    const path = segments.join('/');
    if (path === '') {
      // "./" or "/" is the archive's root directory itself: harmless as a directory.
      if (kind !== 'directory' && !bad) this.reason(`entry ${q} has no name`);
      return null;
    }
    const earlier = this.seen.get(path);
    if (earlier !== undefined) {
      if (!bad && kind === 'directory' && earlier.kind === 'directory') return null;
      if (!bad && kind === 'file' && earlier.content !== undefined) {
        const again = new FileContent(null);
        this.repeats.push({ name, path, first: earlier.content, again });
        return again;
      }
      this.reason(`entry ${q} is a duplicate of an earlier entry for ${quote(path)}`);
      return null;
    }
    if (bad || kind !== 'file') {
      this.seen.set(path, { kind: bad ? 'bad' : kind });
      return null;
    }
    this.files++;
    this.filePaths.add(path);
    const content = new FileContent(this.captureFor(path, segments));
    this.seen.set(path, { kind, content });
    return content;
  }

  /** Where to keep a file's content in memory: a file asked for, or a metadata file; else null. */
  private captureFor(path: string, segments: string[]): Capture | null {
    if (this.keep?.paths.has(path)) {
      // Entries are read one after another, so the budget left is known when the next one starts.
      let used = 0;
      for (const c of this.kept.values()) used += c.storedBytes;
      const capture = new Capture(path, segments, Math.max(0, this.keep.maxBytes - used));
      this.kept.set(path, capture);
      return capture;
    }
    const candidate = candidateKind(segments);
    if (!candidate) return null;
    const capture = new Capture(path, segments, this.limits.maxManifestBytes);
    if (candidate === 'manifest') this.captures.manifest.push(capture);
    else if (candidate === 'pkg-info') this.captures.pkgInfo.push(capture);
    else if (candidate === 'canvas') this.captures.canvas.push(capture);
    else this.captures.metadata.push(capture);
    return capture;
  }

  /**
   * Once the archive is read: a repeated file's path whose entries differ in content is a reason.
   * (A stopped scan is refused already; its last entries may be read only in part.)
   */
  settle(): void {
    if (this.stopped) return;
    for (const { name, path, first, again } of this.repeats) {
      if (first.digest !== again.digest) {
        this.reason(
          `entry ${quote(name)} is a duplicate of an earlier entry for ${quote(path)} with different content (only byte-identical duplicates are accepted)`,
        );
      }
    }
  }

  /** Counts inflated bytes; false (and stopped) once a limit is exceeded. */
  addInflated(n: number): boolean {
    if (this.stopped) return false;
    this.inflated += n;
    const { maxInflatedBytes, maxRatio } = this.limits;
    if (this.inflated > maxInflatedBytes) {
      this.fail(`the package inflates to more than ${formatBytes(maxInflatedBytes)} (the limit)`);
    } else if (this.inflated > RATIO_GRACE_BYTES && this.inflated > maxRatio * this.compressedBytes) {
      const ratio = Math.floor(this.inflated / Math.max(1, this.compressedBytes));
      this.fail(`the package inflates more than ${maxRatio} times its size (at least ${ratio}:1, the limit is ${maxRatio}:1)`);
    }
    return !this.stopped;
  }
}
