// Reads a wheel (zip) from memory with yauzl, one entry at a time, inflating every file to count
// the bytes it really produces (and check its CRC). Names are decoded here rather than by yauzl
// so that a bad name becomes one reason among others instead of an error that ends the listing.
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { fromBuffer, getFileNameLowLevel, type Entry, type LocalFileHeader, type ZipFile } from 'yauzl';
import { quote, type EntryKind, type EntrySink, type Scan } from './entries.ts';

const S_IFMT = 0o170000;
const FILE_TYPES: Record<number, { kind: EntryKind; label?: string }> = {
  0o010000: { kind: 'fifo' },
  0o020000: { kind: 'device' },
  0o040000: { kind: 'directory' },
  0o060000: { kind: 'device' },
  0o100000: { kind: 'file' },
  0o120000: { kind: 'symlink' },
  0o140000: { kind: 'other', label: 'socket' },
};

const UNICODE_PATH_FIELD = 0x7075;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Kind from the Unix mode some zip writers keep in the upper half of the external attributes. */
function kindOf(entry: Entry, name: string): { kind: EntryKind; label?: string } {
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  const isDirName = name.endsWith('/') || name.endsWith('\\');
  if (type === 0) return { kind: isDirName ? 'directory' : 'file' };
  const known = FILE_TYPES[type];
  if (!known) return { kind: 'other', label: `unknown (mode 0o${type.toString(8)})` };
  if (known.kind === 'file' && isDirName) return { kind: 'directory' };
  return known;
}

function readLocalHeader(zip: ZipFile, entry: Entry): Promise<LocalFileHeader> {
  return new Promise((resolve, reject) => {
    zip.readLocalFileHeader(entry, {}, (err, header) => (err ? reject(err) : resolve(header)));
  });
}

function openStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

/** Inflates one entry, counting every byte; a bad stream is a reason, a limit stops the scan. */
async function readData(zip: ZipFile, entry: Entry, name: string, scan: Scan, sink: EntrySink | null): Promise<void> {
  let stream: Readable;
  try {
    stream = await openStream(zip, entry);
  } catch (err) {
    scan.reason(`entry ${quote(name)} cannot be read: ${message(err)}`);
    return;
  }
  await new Promise<void>((resolve) => {
    let crc = 0;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      stream.removeAllListeners('data');
      resolve();
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (!scan.addInflated(chunk.length)) {
        stream.destroy();
        settle();
        return;
      }
      crc = zlib.crc32(chunk, crc);
      sink?.write(chunk);
    });
    stream.on('end', () => {
      if (!settled && crc >>> 0 !== entry.crc32 >>> 0) scan.reason(`entry ${quote(name)} is corrupt (CRC mismatch)`);
      settle();
    });
    stream.on('error', (err) => {
      if (!settled) scan.reason(`entry ${quote(name)} is corrupt: ${message(err)}`);
      stream.destroy();
      settle();
    });
  });
}

async function inspectEntry(zip: ZipFile, entry: Entry, scan: Scan): Promise<void> {
  // strictFileNames: keep backslashes, so that the name rules see the name as written.
  const name = getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
  const utf8 = (entry.generalPurposeBitFlag & 0x800) !== 0;
  const otherNames: string[] = [];
  if (entry.extraFields.some((f) => f.id === UNICODE_PATH_FIELD)) {
    // Extractors that ignore the Unicode-path field use the plain name: it must be safe too.
    const plain = entry.fileNameRaw.toString(utf8 ? 'utf8' : 'latin1');
    if (plain !== name) otherNames.push(plain);
  }
  // Streaming extractors go by the local header's name, not the central directory's.
  const local = await readLocalHeader(zip, entry);
  if (!local.fileName.equals(entry.fileNameRaw)) {
    const localName = local.fileName.toString(utf8 ? 'utf8' : 'latin1');
    scan.reason(`entry ${quote(name)} is named ${quote(localName)} in its local header; the names must agree`);
    otherNames.push(localName);
  }
  const { kind, label } = kindOf(entry, name);
  const sink = scan.addEntry(name, kind, { otherNames, typeLabel: label });
  if (scan.stopped) return;
  if (entry.generalPurposeBitFlag & 0x1) {
    scan.reason(`entry ${quote(name)} is encrypted; encrypted entries are not allowed`);
    return;
  }
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    scan.reason(`entry ${quote(name)} uses compression method ${entry.compressionMethod}; only stored and deflate are supported`);
    return;
  }
  await readData(zip, entry, name, scan, sink);
}

/** Scans a zip held in memory; never throws, every problem ends up in `scan`. */
export function scanZip(bytes: Buffer, scan: Scan): Promise<void> {
  return new Promise((resolve) => {
    let zip: ZipFile | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      try {
        zip?.close();
      } catch {
        // closing a buffer-backed zip cannot fail in a way that matters
      }
      resolve();
    };
    const corrupt = (err: unknown) => {
      scan.fail(`corrupt zip archive: ${message(err)}`);
      finish();
    };
    fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false, strictFileNames: true }, (err, zipfile) => {
      if (err || !zipfile) {
        scan.fail(`not a valid zip archive: ${message(err ?? 'unreadable')}`);
        finish();
        return;
      }
      zip = zipfile;
      zipfile.on('error', corrupt);
      zipfile.on('end', finish);
      zipfile.on('entry', (entry: Entry) => {
        inspectEntry(zipfile, entry, scan).then(() => {
          if (scan.stopped) finish();
          else if (!done) zipfile.readEntry();
        }, corrupt);
      });
      zipfile.readEntry();
    });
  });
}
