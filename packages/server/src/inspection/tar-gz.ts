// Reads a .tar.gz from memory: node's gunzip inflates it (every inflated byte is counted here,
// before tar sees it) and tar's Parser lists the entries. Nothing is written to disk.
import zlib from 'node:zlib';
import { Header, Parser, type ReadEntry } from 'tar';
import { type EntryKind, type Scan } from './entries.ts';

export const NOT_TAR = 'the gzip-compressed content is not a tar archive';
export const TRAILING_DATA = 'the tar archive has data after its end-of-archive marker';

const ZEROS = Buffer.alloc(64 * 1024);

function isZero(data: Buffer): boolean {
  for (let at = 0; at < data.length; at += ZEROS.length) {
    const part = data.subarray(at, at + ZEROS.length);
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
}

const KINDS: Record<string, EntryKind> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'directory',
  SymbolicLink: 'symlink',
  Link: 'hardlink',
  CharacterDevice: 'device',
  BlockDevice: 'device',
  FIFO: 'fifo',
};

/**
 * Whether the first 512 inflated bytes are a tar header. tar's Parser would itself decompress a
 * stream that starts with gzip or zstd magic, which would bypass our counting: refuse that here.
 */
function isTarHeader(block: Buffer): boolean {
  if (block[0] === 0x1f && block[1] === 0x8b) return false;
  if (block.readUInt32BE(0) === 0x28b52ffd) return false;
  try {
    const header = new Header(block);
    return header.nullBlock || (header.cksumValid && !!header.path);
  } catch {
    return false;
  }
}

/** Scans a gzip-compressed tar held in memory; never throws, every problem ends up in `scan`. */
export function scanTarGz(bytes: Buffer, scan: Scan): Promise<void> {
  return new Promise((resolve) => {
    const gunzip = zlib.createGunzip();
    // brotli/zstd off: the Parser gets plain tar and must not try to decompress it again.
    const parser = new Parser({ strict: false, brotli: false, zstd: false });
    let done = false;
    // Set when tar has read the end-of-archive marker. What follows may only be zero padding:
    // other extractors may go on reading (GNU tar -i), and entries hidden there would be unchecked.
    let sawEof = false;
    let fed = 0;
    let head: Buffer[] | null = [];
    let headLength = 0;

    const finish = () => {
      if (done) return;
      done = true;
      gunzip.removeAllListeners('data');
      gunzip.destroy();
      resolve();
    };
    const stop = (reason: string) => {
      if (done) return;
      scan.fail(reason);
      finish();
    };

    parser.on('warn', (code: string, message: string) => {
      stop(code === 'TAR_BAD_ARCHIVE' && /unrecognized/i.test(message) ? NOT_TAR : `corrupt tar archive: ${message}`);
    });
    parser.on('error', (err: Error) => stop(`corrupt tar archive: ${err.message}`));
    parser.on('entry', (entry: ReadEntry) => {
      if (done) {
        entry.resume();
        return;
      }
      const kind = KINDS[entry.type] ?? 'other';
      const sink = scan.addEntry(entry.path, kind, { typeLabel: `'${entry.header.typeKey}' (${entry.type})` });
      if (scan.stopped) {
        entry.resume();
        finish();
        return;
      }
      if (sink) entry.on('data', (chunk: Buffer) => sink.write(chunk));
      else entry.resume();
    });
    // Entries of types tar does not know (sparse files, volume headers, …), and oversized
    // extended headers: both are things a plugin package has no business containing.
    parser.on('ignoredEntry', (entry: ReadEntry) => {
      if (done) return;
      if (entry.meta) stop(`corrupt tar archive: an extended header of ${entry.size} bytes is too large`);
      else {
        scan.addEntry(entry.path, 'other', { typeLabel: `'${entry.header.typeKey}' (${entry.type})` });
        if (scan.stopped) finish();
      }
    });
    parser.on('eof', () => {
      sawEof = true;
    });
    parser.on('end', finish);

    /**
     * Gives tar the chunk a 512-byte block at a time (cut at absolute block boundaries), so that
     * when it reports the end of the archive, we know exactly where the rest begins.
     */
    const feed = (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length && !done) {
        if (sawEof) {
          if (!isZero(chunk.subarray(at))) stop(TRAILING_DATA);
          return;
        }
        const piece = chunk.subarray(at, at + 512 - (fed % 512));
        parser.write(piece);
        fed += piece.length;
        at += piece.length;
      }
    };

    gunzip.on('data', (chunk: Buffer) => {
      if (done) return;
      if (!scan.addInflated(chunk.length)) {
        finish();
        return;
      }
      if (head) {
        head.push(chunk);
        headLength += chunk.length;
        if (headLength < 512) return;
        const start = Buffer.concat(head);
        head = null;
        if (!isTarHeader(start.subarray(0, 512))) {
          stop(NOT_TAR);
          return;
        }
        feed(start);
        return;
      }
      feed(chunk);
    });
    gunzip.on('end', () => {
      if (done) return;
      if (head) {
        stop(NOT_TAR);
        return;
      }
      parser.end();
      // The Parser works synchronously on what it is given, so it is done by now.
      finish();
    });
    gunzip.on('error', (err: Error) => stop(`corrupt gzip data: ${err.message}`));
    gunzip.end(bytes);
  });
}
