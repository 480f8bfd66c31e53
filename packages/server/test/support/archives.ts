// Real archives for tests: zips (yazl), tarballs header by header or packed from a directory by
// tar's own create, and a valid CHARTA_MANIFEST.json to put in them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { create as tarCreate, Header, type HeaderData } from 'tar';
import { ZipFile as YazlZip } from 'yazl';

export interface ZipItem {
  name: string;
  data?: Buffer | string;
  mode?: number;
  dir?: boolean;
  stream?: Readable;
  store?: boolean;
}

export function buildZip(items: ZipItem[]): Promise<Buffer> {
  const zip = new YazlZip();
  for (const item of items) {
    const options = {
      mtime: new Date(0),
      ...(item.mode !== undefined ? { mode: item.mode } : {}),
      ...(item.store ? { compress: false } : {}),
    };
    if (item.dir) zip.addEmptyDirectory(item.name, options);
    else if (item.stream) zip.addReadStream(item.stream, item.name, options);
    else zip.addBuffer(Buffer.from(item.data ?? ''), item.name, options);
  }
  zip.end();
  return collect(zip.outputStream);
}

export async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Replaces every occurrence of `from` by `to` (same length): yazl refuses hostile names itself. */
export function patch(buffer: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from, 'latin1');
  const b = Buffer.from(to, 'latin1');
  assert.equal(a.length, b.length);
  const out = Buffer.from(buffer);
  let at = out.indexOf(a);
  assert.ok(at >= 0, `${from} occurs in the zip`);
  while (at >= 0) {
    b.copy(out, at);
    at = out.indexOf(a, at + b.length);
  }
  return out;
}

/** Sets general-purpose flag bits of every local and central header. */
export function setZipFlags(buffer: Buffer, bits: number): Buffer {
  const out = Buffer.from(buffer);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = out.readUInt32LE(i);
    if (sig === 0x04034b50) out.writeUInt16LE(out.readUInt16LE(i + 6) | bits, i + 6);
    else if (sig === 0x02014b50) out.writeUInt16LE(out.readUInt16LE(i + 8) | bits, i + 8);
  }
  return out;
}

export interface TarItem extends HeaderData {
  path: string;
  body?: Buffer | string;
}

/** A tar stream built header by header, so that any type and any path can be written. */
export function rawTar(items: TarItem[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { body, ...data } of items) {
    const content = Buffer.from(body ?? '');
    const header = new Header({
      mode: data.type === 'Directory' ? 0o755 : 0o644,
      uid: 0,
      gid: 0,
      mtime: new Date(0),
      type: 'File',
      ...data,
      size: content.length,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export const tgz = (items: TarItem[]) => zlib.gzipSync(rawTar(items));

/** A directory tree written to a temp dir and packed with tar's own `create`, as a developer would. */
export async function tarFromDir(files: Record<string, string>, entries: string[]): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-inspect-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), content);
    }
    return await collect(tarCreate({ gzip: true, cwd: dir, portable: true }, entries));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const manifest = (overrides: Record<string, unknown> = {}) => ({
  sdk_version: '0.1.0',
  plugin_version: '1.0.0',
  name: 'Vitals Alert',
  description: 'Warns when a vital sign is out of range.',
  components: {
    handlers: [{ entry: 'dist/index.js', class: 'VitalsHandler', events: ['PLAN_COMMAND__POST_COMMIT'], description: 'Checks vitals.' }],
  },
  tags: ['vitals'],
  references: ['https://example.org/vitals'],
  license: 'Apache-2.0',
  readme: './README.md',
  secrets: ['ALERT_WEBHOOK_URL'],
  ...overrides,
});

/** A handler module that the manifest() above names (dist/index.js, VitalsHandler): it loads and runs, doing nothing. */
export const VITALS_HANDLER_JS = `export class VitalsHandler {
  static RESPONDS_TO = ['PLAN_COMMAND__POST_COMMIT'];
  constructor(event, secrets, log) { this.event = event; }
  acceptEvent() { return true; }
  compute() { return []; }
}
`;

export const manifestJson = (overrides?: Record<string, unknown>) => JSON.stringify(manifest(overrides), null, 2);
