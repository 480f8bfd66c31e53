// Bundles each handler entry with esbuild: one ES module (CommonJS for a .cjs entry) per entry,
// for Node 20, with everything it imports inlined except Node's own modules.
// `@charta/plugin-sdk` resolves from the project's node_modules when it has one, else to the SDK
// this tool ships with, so a freshly generated project builds before any `npm install`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { EntryPlan, Project } from './project.ts';
import { BuildFailure } from './project.ts';

const SDK = '@charta/plugin-sdk';

/** Falls back to the tool's own SDK for imports of @charta/plugin-sdk the project cannot resolve. */
const sdkFallback: esbuild.Plugin = {
  name: 'charta-sdk-fallback',
  setup(build) {
    build.onResolve({ filter: /^@charta\/plugin-sdk(\/.*)?$/ }, async (args) => {
      if (args.pluginData === SDK) return undefined;
      const own = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SDK });
      if (own.errors.length === 0) return own;
      try {
        return { path: fileURLToPath(import.meta.resolve(args.path)) };
      } catch {
        return undefined; // not an export of the SDK: esbuild reports it as unresolved
      }
    });
  },
};

function describe(message: esbuild.Message, dir: string): string {
  const where = message.location
    ? `${path.relative(dir, path.resolve(dir, message.location.file))}:${message.location.line}:${message.location.column + 1}: `
    : '';
  return `${where}${message.text}`;
}

/** The bundled file of every entry that has a source, keyed by its path in the package. */
export async function bundleEntries(project: Project): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const errors: string[] = [];
  for (const plan of project.entries) {
    if (plan.source === null) continue;
    try {
      out.set(plan.entry, await bundleOne(project.dir, plan, errors));
    } catch (err) {
      const failure = err as esbuild.BuildFailure;
      if (!Array.isArray(failure.errors)) throw err;
      errors.push(...failure.errors.map((m) => describe(m, project.dir)));
    }
  }
  if (errors.length) throw new BuildFailure('The build failed', errors, project.dir);
  return out;
}

async function bundleOne(dir: string, plan: EntryPlan, errors: string[]): Promise<Uint8Array> {
  const ext = path.extname(plan.entry);
  const result = await esbuild.build({
    absWorkingDir: dir,
    entryPoints: [{ in: plan.source!, out: plan.entry.slice(0, -ext.length) }],
    outdir: dir,
    outExtension: { '.js': ext },
    bundle: true,
    platform: 'node',
    format: ext === '.cjs' ? 'cjs' : 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    plugins: [sdkFallback],
  });
  const file = result.outputFiles[0]!;
  const exported = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined)?.exports ?? [];
  // esbuild lists the exports of ES modules only.
  for (const name of ext === '.cjs' ? [] : plan.exports) {
    if (!exported.includes(name)) errors.push(`${plan.source} does not export ${name} (the manifest's class for ${plan.entry})`);
  }
  return file.contents;
}
