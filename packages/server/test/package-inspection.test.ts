// Package inspection (plugins/inspection): real wheels and tarballs built here, good ones read for
// their metadata, hostile ones each rejected with its reason — all in memory, nothing extracted.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { buildZip, manifest, manifestJson, patch, rawTar, setZipFlags, tarFromDir, tgz, type TarItem } from './support/archives.ts';
import { slugify } from '@charta/plugin-sdk';
import { manifestSchema, validateManifest } from '@charta/plugin-sdk/manifest';
import {
  DEFAULT_LIMITS,
  inspectPackage,
  NO_METADATA,
  readPackageFiles,
  type Inspection,
  type InspectionLimits,
  type PackageMetadata,
} from '../src/inspection/index.ts';
import { originalToolPackage } from './support/original-tool.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures and assertions

const METADATA = [
  'Metadata-Version: 2.1',
  'Name: My_Old.Plugin',
  'Version: 0.2.0',
  'Summary: A plugin built for the original tool',
  'Classifier: Programming Language :: Python',
  '',
  'A long description that mentions Name: Not-This',
].join('\n');

function accepted(result: Inspection): PackageMetadata {
  assert.ok(result.ok, `expected the package to be accepted: ${JSON.stringify(result)}`);
  return result.metadata;
}

/** Expects a rejection (400, not 413) with a reason matching every pattern; returns the reasons. */
function rejectedWith(result: Inspection, ...patterns: RegExp[]): string[] {
  assert.ok(!result.ok, 'expected the package to be rejected');
  assert.equal(result.tooLarge, false, `not a 413: ${JSON.stringify(result.reasons)}`);
  for (const pattern of patterns) {
    assert.ok(
      result.reasons.some((r) => pattern.test(r)),
      `a reason matches ${pattern}: ${JSON.stringify(result.reasons)}`,
    );
  }
  return result.reasons;
}

const goodTarItems = (): TarItem[] => [
  { path: 'CHARTA_MANIFEST.json', body: manifestJson() },
  { path: 'dist/', type: 'Directory' },
  { path: 'dist/index.js', body: 'export class VitalsHandler {}' },
];

// ---------------------------------------------------------------------------------------------

describe('accepted packages', () => {
  it('reads a wheel by its *.dist-info/METADATA', async () => {
    const wheel = await buildZip([
      { name: 'my_old_plugin/__init__.py', data: '' },
      { name: 'my_old_plugin/protocols/', dir: true },
      { name: 'my_old_plugin/protocols/protocol.py', data: 'class Protocol: pass\n' },
      { name: 'my_old_plugin-0.2.0.dist-info/METADATA', data: METADATA },
      { name: 'my_old_plugin-0.2.0.dist-info/WHEEL', data: 'Wheel-Version: 1.0\n' },
      { name: 'my_old_plugin-0.2.0.dist-info/RECORD', data: '' },
    ]);
    const meta = accepted(await inspectPackage(wheel));
    assert.deepEqual(
      { name: meta.name, version: meta.version, description: meta.description, format: meta.format, source: meta.source },
      { name: 'my-old-plugin', version: '0.2.0', description: 'A plugin built for the original tool', format: 'wheel', source: 'pkg-info' },
    );
    assert.equal(meta.manifest, undefined);
    assert.equal(meta.files, 5);
    assert.ok(meta.inflatedBytes > METADATA.length);
  });

  it('reads a tar.gz made by tar with CHARTA_MANIFEST.json at the top level ("./" prefixes)', async () => {
    const pkg = await tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson(), 'dist/index.js': 'export class VitalsHandler {}', 'README.md': '# Vitals' }, ['.']);
    const meta = accepted(await inspectPackage(pkg));
    assert.equal(meta.name, 'vitals-alert');
    assert.equal(meta.version, '1.0.0');
    assert.equal(meta.description, 'Warns when a vital sign is out of range.');
    assert.equal(meta.format, 'tar.gz');
    assert.equal(meta.source, 'manifest');
    assert.equal(meta.root, '');
    assert.equal(meta.files, 3);
    assert.deepEqual(meta.manifest, manifest());
  });

  it('reads a tar.gz with CHARTA_MANIFEST.json one directory down', async () => {
    const pkg = await tarFromDir(
      {
        'vitals_alert/CHARTA_MANIFEST.json': manifestJson({ name: 'vitals_alert', plugin_version: '2.1.0-beta.1' }),
        'vitals_alert/dist/index.js': 'export class VitalsHandler {}',
      },
      ['vitals_alert'],
    );
    const meta = accepted(await inspectPackage(pkg));
    assert.equal(meta.name, 'vitals-alert');
    assert.equal(meta.version, '2.1.0-beta.1');
    assert.equal(meta.root, 'vitals_alert');
  });

  it('reads an sdist by its PKG-INFO one directory down, and goes by content, not by name', async () => {
    const sdist = tgz([
      { path: 'my_old_plugin-0.2.0/', type: 'Directory' },
      { path: 'my_old_plugin-0.2.0/PKG-INFO', body: METADATA },
      // Two levels down: ignored, not "several PKG-INFO".
      { path: 'my_old_plugin-0.2.0/my_old_plugin.egg-info/PKG-INFO', body: 'Name: other\nVersion: 9\n' },
      { path: 'my_old_plugin-0.2.0/setup.py', body: '' },
    ]);
    const meta = accepted(await inspectPackage(sdist));
    assert.equal(meta.name, 'my-old-plugin');
    assert.equal(meta.format, 'tar.gz');
    assert.equal(meta.source, 'pkg-info');
  });

  it('accepts a manifest with only the required fields and a handler given by class', async () => {
    const minimal = {
      sdk_version: '0.1',
      plugin_version: '0.0.1',
      name: 'x',
      description: '',
      components: { handlers: [{ class: 'handlers.events:Handler', events: ['PLAN_COMMAND__POST_COMMIT'], description: '' }] },
    };
    const meta = accepted(await inspectPackage(tgz([{ path: 'CHARTA_MANIFEST.json', body: JSON.stringify(minimal) }])));
    assert.equal(meta.name, 'x');
  });
});

describe('rejected kinds', () => {
  it('refuses what is neither zip nor gzip (a plain tar named .tar.gz, text, nothing)', async () => {
    for (const bytes of [rawTar(goodTarItems()), Buffer.from('hello'), Buffer.alloc(0)]) {
      const reasons = rejectedWith(await inspectPackage(bytes), /^not a wheel \(zip\) or a gzip-compressed tar archive$/);
      assert.equal(reasons.length, 1);
    }
  });

  it('refuses gzip whose content is not a tar archive', async () => {
    rejectedWith(await inspectPackage(zlib.gzipSync(Buffer.from('just some text\n'.repeat(100)))), /not a tar archive/);
    rejectedWith(await inspectPackage(zlib.gzipSync(Buffer.from('short'))), /not a tar archive/);
    // gzip inside gzip would be inflated a second time, unseen by the limits.
    rejectedWith(await inspectPackage(zlib.gzipSync(tgz(goodTarItems()))), /not a tar archive/);
  });

  it('refuses a file with zip magic that is truncated', async () => {
    const wheel = await buildZip([{ name: 'CHARTA_MANIFEST.json', data: manifestJson() }]);
    rejectedWith(await inspectPackage(wheel.subarray(0, Math.floor(wheel.length / 2))), /zip/);
  });

  it('refuses a truncated or corrupt tar.gz', async () => {
    const pkg = tgz([...goodTarItems(), { path: 'big.bin', body: Buffer.alloc(100_000, 7) }]);
    rejectedWith(await inspectPackage(pkg.subarray(0, pkg.length - 40)), /gzip|tar/);
    const corrupt = Buffer.from(pkg);
    corrupt[40] = corrupt[40]! ^ 0xff;
    rejectedWith(await inspectPackage(corrupt), /gzip|tar/);
  });

  it('refuses a truncated tar inside intact gzip', async () => {
    const tar = rawTar([...goodTarItems(), { path: 'big.bin', body: Buffer.alloc(5000, 7) }]);
    rejectedWith(await inspectPackage(zlib.gzipSync(tar.subarray(0, tar.length - 4000))), /corrupt tar archive: Truncated/);
  });

  it('refuses data after the tar end-of-archive marker (concatenated archives), not zero padding', async () => {
    const first = rawTar(goodTarItems());
    const hidden = rawTar([{ path: 'hidden/evil.js', body: 'evil' }]);
    rejectedWith(await inspectPackage(zlib.gzipSync(Buffer.concat([first, hidden]))), /data after its end-of-archive marker/);
    // The same as two gzip members, as `cat a.tar.gz b.tar.gz` makes.
    rejectedWith(await inspectPackage(Buffer.concat([zlib.gzipSync(first), zlib.gzipSync(hidden)])), /data after its end-of-archive marker/);
    accepted(await inspectPackage(zlib.gzipSync(Buffer.concat([first, Buffer.alloc(9 * 1024)]))));
  });

  it('refuses a zip entry whose data does not match its CRC', async () => {
    const wheel = await buildZip([{ name: 'CHARTA_MANIFEST.json', data: manifestJson(), store: true }]);
    const bad = Buffer.from(wheel);
    const at = bad.indexOf('"sdk_version"');
    bad[at + 1] = 'S'.charCodeAt(0);
    rejectedWith(await inspectPackage(bad), /"CHARTA_MANIFEST\.json" is corrupt \(CRC mismatch\)/);
  });
});

describe('rejected entries', () => {
  it('path traversal, absolute paths and NUL in a tar.gz — every reason at once', async () => {
    const reasons = rejectedWith(
      await inspectPackage(
        tgz([
          ...goodTarItems(),
          { path: '../x', body: 'x' },
          { path: 'a/../../y', body: 'y' },
          { path: '/etc/cron.d/evil', body: 'z' },
          { path: 'C:/evil.txt', body: 'z' },
          { path: '\\evil.txt', body: 'z' },
        ]),
      ),
      /"\.\.\/x" contains a '\.\.' segment/,
      /"a\/\.\.\/\.\.\/y" contains a '\.\.' segment/,
      /"\/etc\/cron\.d\/evil" is an absolute path/,
      /"C:\/evil\.txt" is an absolute path/,
      /"\\\\evil\.txt" is an absolute path/,
    );
    assert.equal(reasons.length, 5, JSON.stringify(reasons));
  });

  it('path traversal, absolute paths, NUL and backslashes in a wheel', async () => {
    let wheel = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'aa/x', data: 'x' },
      { name: 'bb/y', data: 'y' },
      { name: 'cbz', data: 'z' },
      { name: 'dd/w', data: 'w' },
      { name: 'q/qq/r', data: 'r' },
    ]);
    wheel = patch(wheel, 'aa/x', '../x');
    wheel = patch(wheel, 'bb/y', 'C:/y');
    wheel = patch(wheel, 'cbz', 'c\0z');
    wheel = patch(wheel, 'dd/w', '/d/w');
    wheel = patch(wheel, 'q/qq/r', 'q\\..\\r');
    rejectedWith(
      await inspectPackage(wheel),
      /"\.\.\/x" contains a '\.\.' segment/,
      /"C:\/y" is an absolute path/,
      /"c\\u0000z" contains a NUL character/,
      /"\/d\/w" is an absolute path/,
      /"q\\\\\.\.\\\\r" contains a '\.\.' segment/,
    );
  });

  it('a zip whose local header names another file than its central directory', async () => {
    const wheel = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'aa/x', data: 'x' },
    ]);
    const local = wheel.indexOf('aa/x');
    const bad = Buffer.from(wheel);
    Buffer.from('../x').copy(bad, local); // the first occurrence is the local header
    rejectedWith(await inspectPackage(bad), /named "\.\.\/x" in its local header/, /"\.\.\/x"\) contains a '\.\.' segment/);
  });

  it('symlinks in a tar.gz and in a wheel', async () => {
    rejectedWith(
      await inspectPackage(tgz([...goodTarItems(), { path: 'passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }])),
      /"passwd" is a symbolic link/,
    );
    const wheel = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'passwd', data: '/etc/passwd', mode: 0o120777 },
    ]);
    rejectedWith(await inspectPackage(wheel), /"passwd" is a symbolic link/);
  });

  it('hard links, devices and FIFOs in a tar.gz', async () => {
    rejectedWith(
      await inspectPackage(
        tgz([
          ...goodTarItems(),
          { path: 'hard', type: 'Link', linkpath: 'CHARTA_MANIFEST.json' },
          { path: 'tty', type: 'CharacterDevice', devmaj: 4, devmin: 1 },
          { path: 'sda', type: 'BlockDevice', devmaj: 8, devmin: 0 },
          { path: 'pipe', type: 'FIFO' },
        ]),
      ),
      /"hard" is a hard link/,
      /"tty" is a device file/,
      /"sda" is a device file/,
      /"pipe" is a FIFO/,
    );
  });

  it('devices and FIFOs in a wheel (by their Unix mode)', async () => {
    const wheel = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'tty', data: '', mode: 0o020666 },
      { name: 'pipe', data: '', mode: 0o010644 },
    ]);
    rejectedWith(await inspectPackage(wheel), /"tty" is a device file/, /"pipe" is a FIFO/);
  });

  it('duplicate entries that differ, also after normalising "./" and trailing "/"', async () => {
    rejectedWith(
      await inspectPackage(
        tgz([
          ...goodTarItems(),
          { path: 'dist/index.js', body: 'export class Evil {}' },
          { path: './README.md', body: 'a' },
          { path: 'README.md', body: 'b' },
          { path: 'lib', body: 'file' },
          { path: 'lib/', type: 'Directory' },
        ]),
      ),
      /entry "dist\/index\.js" is a duplicate of an earlier entry for "dist\/index\.js" with different content/,
      /entry "README\.md" is a duplicate of an earlier entry for "README\.md" with different content/,
      /"lib\/" is a duplicate/,
    );
    const wheel = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'dist/index.js', data: 'export { evil }' },
    ]);
    rejectedWith(await inspectPackage(wheel), /"dist\/index\.js" is a duplicate of an earlier entry for "dist\/index\.js" with different content/);
    // Same length, one byte apart; and a directory and a file at one path.
    rejectedWith(
      await inspectPackage(tgz([...goodTarItems(), { path: 'a.txt', body: 'abc' }, { path: './a.txt', body: 'abd' }])),
      /"\.\/a\.txt" is a duplicate of an earlier entry for "a\.txt" with different content/,
    );
    rejectedWith(await inspectPackage(tgz([...goodTarItems(), { path: 'dist', type: 'File', body: '' }])), /"dist" is a duplicate/);
  });

  it('duplicate entries with the same bytes are accepted, one kept (the original tool, Oct 2024 – Feb 2026)', async () => {
    const twice = accepted(await inspectPackage(originalToolPackage('directory-twice', 'twice-plugin')));
    const once = accepted(await inspectPackage(originalToolPackage('directory', 'twice-plugin')));
    assert.deepEqual({ ...twice, inflatedBytes: 0 }, { ...once, inflatedBytes: 0 }, 'the same metadata, the same files counted once');
    assert.equal(twice.files, 4);
    assert.ok(twice.inflatedBytes > once.inflatedBytes, 'the second copies are inflated and counted');
    // A Charta package whose handler module and manifest are there twice: one manifest, one module.
    const items = [...goodTarItems(), ...goodTarItems(), { path: './dist/index.js', body: 'export class VitalsHandler {}' }];
    const meta = accepted(await inspectPackage(tgz(items)));
    assert.equal(meta.source, 'manifest');
    assert.equal(meta.files, 2);
    const read = await readPackageFiles(tgz(items), new Set(['dist/index.js']), 1024);
    assert.ok(read.ok);
    assert.deepEqual([...read.files], [['dist/index.js', Buffer.from('export class VitalsHandler {}')]]);
    // The same in a wheel, with an empty file twice.
    const wheel = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'dist/empty.js', data: '' },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'dist/empty.js', data: '' },
    ]);
    assert.equal(accepted(await inspectPackage(wheel)).files, 3);
  });

  it('encrypted zip entries', async () => {
    const wheel = await buildZip([{ name: 'CHARTA_MANIFEST.json', data: manifestJson() }]);
    rejectedWith(await inspectPackage(setZipFlags(wheel, 0x1)), /is encrypted/);
  });

  it('tar entry types tar itself does not know', async () => {
    const tar = rawTar([...goodTarItems(), { path: 'sparse', body: 'x' }]);
    // Rewrite the last entry's type flag to 'S' (GNU sparse) and fix its checksum.
    const at = tar.length - 1024 - 1024;
    tar[at + 156] = 'S'.charCodeAt(0);
    tar.fill(0x20, at + 148, at + 156);
    let sum = 0;
    for (let i = at; i < at + 512; i++) sum += tar[i]!;
    tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, at + 148, 'latin1');
    rejectedWith(await inspectPackage(zlib.gzipSync(tar)), /"sparse" is of type 'S'/);
  });
});

describe('limits', () => {
  let bomb: Buffer;
  before(async () => {
    // 200 MiB of zeros deflated (about 200 KiB), streamed into yazl a MiB at a time.
    const zeros = Buffer.alloc(1024 * 1024);
    const stream = Readable.from(
      (function* () {
        for (let i = 0; i < 200; i++) yield zeros;
      })(),
    );
    bomb = await buildZip([
      { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
      { name: 'dist/index.js', data: 'export {}' },
      { name: 'zeros.bin', stream },
    ]);
    assert.ok(bomb.length < 1024 * 1024, `the bomb is small (${bomb.length} bytes)`);
  });

  it('a zip bomb stops at the inflated-size limit (ratio limit lifted)', async () => {
    const started = Date.now();
    const result = await inspectPackage(bomb, { ...DEFAULT_LIMITS, maxRatio: 1e9 });
    const reasons = rejectedWith(result, /inflates to more than 100 MiB \(the limit\)/);
    assert.equal(reasons.length, 1, JSON.stringify(reasons));
    assert.ok(Date.now() - started < 5000, 'stopped quickly');
  });

  it('the same bomb stops at the compression-ratio limit with the default limits', async () => {
    const reasons = rejectedWith(await inspectPackage(bomb), /inflates more than 100 times its size/);
    assert.equal(reasons.length, 1, JSON.stringify(reasons));
  });

  it('a tar.gz bomb is counted on the bytes actually inflated, whatever the header says', async () => {
    // The header claims 1 KiB; the gzip really holds 20 MiB of zeros after it.
    const tar = Buffer.concat([rawTar([{ path: 'CHARTA_MANIFEST.json', body: manifestJson() }]), Buffer.alloc(20 * 1024 * 1024)]);
    rejectedWith(await inspectPackage(zlib.gzipSync(tar), { maxInflatedBytes: 8 * 1024 * 1024, maxRatio: 1e9 }), /inflates to more than 8 MiB/);
    rejectedWith(await inspectPackage(zlib.gzipSync(tar)), /inflates more than 100 times/);
  });

  it('too many entries, in a tar.gz and in a wheel', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ path: `f${i}.txt`, body: `${i}` }));
    const limits: Partial<InspectionLimits> = { maxEntries: 20 };
    const reasons = rejectedWith(await inspectPackage(tgz([...goodTarItems(), ...many]), limits), /more than 20 entries/);
    assert.equal(reasons.length, 1);
    const wheel = await buildZip(many.map((m) => ({ name: m.path, data: m.body })));
    rejectedWith(await inspectPackage(wheel, limits), /more than 20 entries/);
    accepted(await inspectPackage(tgz(goodTarItems()), { maxEntries: 3 }));
  });

  it('a duplicate counts as an entry and its bytes as inflated, though only one is kept', async () => {
    // Three entries, each file twice: six entries.
    const twice = [...goodTarItems(), ...goodTarItems()];
    accepted(await inspectPackage(tgz(twice), { maxEntries: 6 }));
    rejectedWith(await inspectPackage(tgz(twice), { maxEntries: 5 }), /more than 5 entries/);
    // A 3 MiB file: once is under a 4 MiB inflated limit, twice is over it.
    const big = { path: 'data.bin', body: Buffer.alloc(3 * 1024 * 1024, 7) };
    const limits = { maxInflatedBytes: 4 * 1024 * 1024, maxRatio: 1e9 };
    accepted(await inspectPackage(tgz([...goodTarItems(), big]), limits));
    rejectedWith(await inspectPackage(tgz([...goodTarItems(), big, big]), limits), /inflates to more than 4 MiB/);
  });

  it('an upload over the size limit is tooLarge (413), without being read', async () => {
    const pkg = tgz(goodTarItems());
    const result = await inspectPackage(pkg, { maxCompressedBytes: pkg.length - 1 });
    assert.ok(!result.ok);
    assert.equal(result.tooLarge, true);
    assert.match(result.reasons.join('\n'), new RegExp(`the package is ${pkg.length} bytes, more than the limit`));
    assert.equal(result.reasons.length, 1);
    accepted(await inspectPackage(pkg, { maxCompressedBytes: pkg.length }));
    const big = await inspectPackage(Buffer.alloc(DEFAULT_LIMITS.maxCompressedBytes + 1));
    assert.ok(!big.ok && big.tooLarge);
  });

  it('a manifest over maxManifestBytes', async () => {
    const padded = manifestJson() + ' '.repeat(70 * 1024);
    rejectedWith(
      await inspectPackage(
        tgz([
          { path: 'CHARTA_MANIFEST.json', body: padded },
          { path: 'dist/index.js', body: '' },
        ]),
      ),
      /CHARTA_MANIFEST\.json: larger than 64 KiB/,
    );
  });
});

describe('metadata', () => {
  it('a manifest with a wrong type is reported with its JSON path', async () => {
    const reasons = rejectedWith(
      await inspectPackage(tgz([{ path: 'CHARTA_MANIFEST.json', body: manifestJson({ components: 'x', tags: 'x', extra: 1 }) }])),
      /^CHARTA_MANIFEST\.json: \/components must be object$/,
      /^CHARTA_MANIFEST\.json: \/tags must be array$/,
      /^CHARTA_MANIFEST\.json: \/ must NOT have the property 'extra'$/,
    );
    assert.equal(reasons.length, 3, JSON.stringify(reasons));
  });

  it('every schema error of a manifest, inside handlers too', async () => {
    const bad = {
      sdk_version: '',
      plugin_version: 'v1',
      name: '../evil',
      description: 'x'.repeat(501),
      components: {
        handlers: [
          { entry: '../outside.js', events: [], description: '', extra: true },
          { events: ['lower_case'], description: '' },
        ],
      },
      secrets: ['lower'],
      readme: 3,
    };
    rejectedWith(
      await inspectPackage(tgz([{ path: 'CHARTA_MANIFEST.json', body: JSON.stringify(bad) }])),
      /\/sdk_version must NOT have fewer than 1 characters/,
      /\/plugin_version must be a version/,
      /\/name must be a name of letters, digits/,
      /\/description must NOT have more than 500 characters/,
      /\/components\/handlers\/0\/entry must be a relative path/,
      /\/components\/handlers\/0\/events must NOT have fewer than 1 items/,
      /\/components\/handlers\/0 must NOT have the property 'extra'/,
      /\/components\/handlers\/1 must have an 'entry' or a 'class'/,
      /\/components\/handlers\/1\/events\/0 must be an event name/,
      /\/secrets\/0 must be a secret name/,
      /\/readme must be string,boolean/,
    );
    rejectedWith(
      await inspectPackage(tgz([{ path: 'CHARTA_MANIFEST.json', body: manifestJson({ components: {} }) }])),
      /\/components must have required property 'handlers'/,
    );
  });

  it('a handler entry that is not in the package', async () => {
    rejectedWith(
      await inspectPackage(tgz([{ path: 'CHARTA_MANIFEST.json', body: manifestJson() }])),
      /\/components\/handlers\/0\/entry "dist\/index\.js" is not a file in the package/,
    );
  });

  it('a manifest that is not JSON, and no falling back to PKG-INFO then', async () => {
    rejectedWith(
      await inspectPackage(
        tgz([
          { path: 'CHARTA_MANIFEST.json', body: '{"name": ' },
          { path: 'PKG-INFO', body: METADATA },
        ]),
      ),
      /^CHARTA_MANIFEST\.json: not valid JSON/,
    );
  });

  it('two manifests (top level and one directory down)', async () => {
    rejectedWith(
      await inspectPackage(tgz([...goodTarItems(), { path: 'sub/CHARTA_MANIFEST.json', body: manifestJson() }, { path: 'sub/dist/index.js', body: '' }])),
      /several CHARTA_MANIFEST\.json files found \("CHARTA_MANIFEST\.json", "sub\/CHARTA_MANIFEST\.json"\)/,
    );
    // Deeper ones do not count.
    accepted(await inspectPackage(tgz([...goodTarItems(), { path: 'a/b/CHARTA_MANIFEST.json', body: '{' }])));
  });

  it('no metadata at all, or PKG-INFO without Name / Version', async () => {
    rejectedWith(await inspectPackage(tgz([{ path: 'README.md', body: 'hi' }])), new RegExp(`^${NO_METADATA.replace(/[.*]/g, '\\$&')}$`));
    rejectedWith(await inspectPackage(await buildZip([{ name: 'x.py', data: '' }])), /no CHARTA_MANIFEST\.json, PKG-INFO or \*\.dist-info\/METADATA found/);
    rejectedWith(
      await inspectPackage(tgz([{ path: 'PKG-INFO', body: 'Metadata-Version: 2.1\nSummary: s\n' }])),
      /PKG-INFO: no Name header/,
      /PKG-INFO: no Version header/,
    );
    rejectedWith(
      await inspectPackage(
        tgz([
          { path: 'a/PKG-INFO', body: METADATA },
          { path: 'b/PKG-INFO', body: METADATA },
        ]),
      ),
      /several PKG-INFO files found/,
    );
  });

  it('slugs', () => {
    assert.equal(slugify('My Plugin'), 'my-plugin');
    assert.equal(slugify('  __Vitals--Alert 2__ '), 'vitals-alert-2');
    assert.equal(slugify('my_old.plugin'), 'my-old-plugin');
  });
});

describe('manifestSchema', () => {
  it('forbids additional properties on every object it defines', () => {
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema['type'] === 'object') assert.equal(schema['additionalProperties'], false, `${at} is closed`);
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    walk(manifestSchema, '#');
  });

  it('accepts the example of docs/plugin-manifest.md', () => {
    const doc = fs.readFileSync(new URL('../../../docs/plugin-manifest.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(doc);
    assert.ok(example, 'docs/plugin-manifest.md has a json example');
    const result = validateManifest(JSON.parse(example[1]!));
    assert.ok(result.ok, JSON.stringify(result));
  });
});
