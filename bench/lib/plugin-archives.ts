// Plugin packages for the install scenario: real .tar.gz archives of about 1 MiB, each with a
// valid CHARTA_MANIFEST.json under its own plugin name (a second install of a name answers 400).
// The content is what a bundled plugin looks like: a manifest, a README, a minified-looking
// JavaScript bundle (text that gzip shrinks about 4:1) and a binary asset (random bytes, which it
// cannot shrink), so the archive really is ~1 MiB on the wire and inflates to less than twice
// that, far below the 100:1 ratio limit. Tar headers as the tests write them (tar's Header),
// gzip at zlib's default level (what `tar -czf` uses).
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { manifestJson, rawTar, type TarItem } from '../../packages/server/test/support/archives.ts';
import { mulberry32 } from './random.ts';

const gzip = promisify(zlib.gzip);

export interface PluginPackage {
  /** The manifest's name; the plugin is installed as its slug. */
  name: string;
  slug: string;
  bytes: Buffer;
}

export interface PackageSet {
  packages: PluginPackage[];
  /** Bytes of the archive (all are within a few bytes of each other). */
  archiveBytes: number;
  /** Bytes of everything in it, inflated (tar headers included). */
  inflatedBytes: number;
  files: Array<{ path: string; bytes: number }>;
  seconds: number;
}

const IDENTIFIERS =
  'e t n r i o a s c l u d h f p m value entry event command payload result options handler context patient note vitals threshold systolic diastolic pulse alert webhook fetch response request json status retry timeout schema field params state index length push map filter reduce keys assign'.split(
    ' ',
  );

/**
 * A minified-looking bundle of about `size` bytes (it gzips to roughly a quarter) that is valid
 * JavaScript and exports the handler the manifest names: an install loads it in the sandbox, so
 * it must evaluate (docs/plugins.md).
 */
function bundle(size: number, rnd: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)]!;
  const num = (max: number) => Math.floor(rnd() * max);
  const parts: string[] = ['"use strict";'];
  let length = parts[0]!.length;
  for (let n = 0; length < size; n++) {
    const [a, b, c] = [pick(IDENTIFIERS), pick(IDENTIFIERS), pick(IDENTIFIERS)];
    const statement =
      rnd() < 0.5
        ? `function ${a}${n}(${b}_,${c}__){const x=${b}_*${num(10_000)}+${c}__;return x>"${a} ${b}".length?x:${c}__}`
        : `const ${b}${n}={${a}:${num(1000)},${c}:"${pick(IDENTIFIERS)} ${pick(IDENTIFIERS)}",f:(v)=>v&&v.${a}!==${num(100)}?[v].map((w)=>w.${c}):null};`;
    parts.push(statement);
    length += statement.length;
    if (rnd() < 0.05) {
      parts.push('\n');
      length++;
    }
  }
  parts.push('\n', HANDLER_JS);
  return parts.join('');
}

/**
 * The handler the packages declare: on an event no other scenario fires or counts (the
 * plugin-commit scenario waits until exactly its own plugin handles the plan's commit events).
 */
const HANDLER_EVENT = 'DIAGNOSE_COMMAND__POST_ENTER_IN_ERROR';
const HANDLER_JS = `export class BenchHandler {
  static RESPONDS_TO = ['${HANDLER_EVENT}'];
  constructor(event) { this.event = event; }
  acceptEvent() { return true; }
  compute() { return []; }
}
`;

const README = '# Bench plugin\n\nA package of the size of a bundled plugin with a small model file, for `npm run bench`.\n';
const BUNDLE_BYTES = 700_000;

function items(name: string, index: number, js: string, asset: Buffer): TarItem[] {
  return [
    {
      path: 'CHARTA_MANIFEST.json',
      body: manifestJson({
        name,
        plugin_version: `1.0.${index}`,
        description: 'Benchmark package: a bundled handler and a binary asset.',
        secrets: [],
        components: { handlers: [{ entry: 'dist/index.js', class: 'BenchHandler', events: [HANDLER_EVENT], description: 'Does nothing.' }] },
      }),
    },
    { path: 'README.md', body: README },
    { path: 'dist/', type: 'Directory' },
    { path: 'dist/index.js', body: js },
    { path: 'assets/', type: 'Directory' },
    { path: 'assets/model.bin', body: asset },
  ];
}

/**
 * `count` packages named "Bench Plugin 00001"… (slugs bench-plugin-00001…) of about
 * `targetBytes` each: the random asset is sized so the whole archive lands near the target.
 */
export async function buildPackages(count: number, targetBytes = 1024 * 1024): Promise<PackageSet> {
  const started = performance.now();
  const rnd = mulberry32(1_000_003);
  const js = bundle(BUNDLE_BYTES, rnd);
  // The asset is incompressible: gzip stores it with about 0.15 % of framing.
  const probe = (await gzip(rawTar(items('Bench Plugin 00000', 0, js, Buffer.alloc(0))))).length;
  const asset = crypto.randomBytes(Math.max(0, Math.floor((targetBytes - probe) / 1.0015)));
  const packages: PluginPackage[] = new Array(count);
  let next = 0;
  // Two at a time: zlib's async gzip runs on the thread pool, one per core of this machine.
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const number = String(i + 1).padStart(5, '0');
      const name = `Bench Plugin ${number}`;
      packages[i] = { name, slug: `bench-plugin-${number}`, bytes: await gzip(rawTar(items(name, i + 1, js, asset))) };
    }
  };
  await Promise.all([worker(), worker()]);
  const tarOfFirst = rawTar(items(packages[0]?.name ?? 'Bench Plugin 00001', 1, js, asset));
  return {
    packages,
    archiveBytes: packages[0]?.bytes.length ?? 0,
    inflatedBytes: tarOfFirst.length,
    files: [
      { path: 'CHARTA_MANIFEST.json', bytes: Buffer.byteLength(items('Bench Plugin 00001', 1, js, asset)[0]!.body as string) },
      { path: 'README.md', bytes: README.length },
      { path: 'dist/index.js', bytes: js.length },
      { path: 'assets/model.bin', bytes: asset.length },
    ],
    seconds: (performance.now() - started) / 1000,
  };
}
