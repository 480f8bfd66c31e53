// Packages and requests as each version of the original plugin tool makes them (docs/cli.md,
// "The original tool"): its Python packages, and the calls of its later versions to
// /plugin-io/plugins/ with a client-credentials token.
import { tgz, type TarItem } from './archives.ts';

/** The original tool's manifest (schema of May 2024), as its `init` template writes it. */
export const canvasManifest = (name: string, version = '0.0.1') =>
  JSON.stringify(
    {
      sdk_version: '0.1.4',
      plugin_version: version,
      name,
      description: 'Made by the original tool',
      components: {
        protocols: [
          {
            class: `${name}.protocols.my_protocol:Protocol`,
            description: 'A protocol that does xyz...',
            data_access: { event: '', read: [], write: [] },
          },
        ],
        commands: [],
        content: [],
        effects: [],
        views: [],
      },
      secrets: [],
      tags: {},
      references: [],
      license: '',
      diagram: false,
      readme: './README.md',
    },
    null,
    2,
  );

const PROTOCOL_PY = `from canvas_sdk.events import EventType
from canvas_sdk.protocols import BaseProtocol
from logger import log


class Protocol(BaseProtocol):
    RESPONDS_TO = EventType.Name(EventType.ASSESS_COMMAND__CONDITION_SELECTED)

    def compute(self):
        log.info(self.event)
        return []
`;

/**
 * Which version of the original tool built the package:
 * - `sdist` (Feb–Apr 2024): `poetry build`, an sdist whose metadata is `<name>-<version>/PKG-INFO`;
 * - `directory` (Apr–Oct 2024, and again from March 2026): the plugin's folder packed as a
 *   .tar.gz under the archive root `.`, whose metadata is `CANVAS_MANIFEST.json`;
 * - `directory-twice` (about October 2024 to February 2026): the same, but every file of a
 *   subfolder (and the subfolder itself) is in the archive twice, same path, same bytes.
 */
export type OriginalPackaging = 'sdist' | 'directory' | 'directory-twice';

/** A package of the plugin `name` as the original tool of that time uploads it (a .tar.gz). */
export function originalToolPackage(packaging: OriginalPackaging, name: string, version = '0.0.1'): Buffer {
  if (packaging === 'sdist') {
    const root = `${name}-${version}`;
    const pkg = name.replace(/-/g, '_');
    const pkgInfo = ['Metadata-Version: 2.1', `Name: ${name}`, `Version: ${version}`, 'Summary: A plugin to interact with a Canvas Instance', ''].join('\n');
    return tgz([
      { path: `${root}/${pkg}/__init__.py`, body: '' },
      { path: `${root}/${pkg}/plugin.py`, body: 'def initialized():\n    pass\n' },
      { path: `${root}/pyproject.toml`, body: `[tool.poetry]\nname = "${name}"\nversion = "${version}"\n` },
      { path: `${root}/PKG-INFO`, body: pkgInfo },
    ]);
  }
  const top: TarItem[] = [
    { path: '.', type: 'Directory' },
    { path: './CANVAS_MANIFEST.json', body: canvasManifest(name, version) },
    { path: './README.md', body: `# ${name}\n` },
  ];
  const sub: TarItem[] = [
    { path: './protocols', type: 'Directory' },
    { path: './protocols/__init__.py', body: '' },
    { path: './protocols/my_protocol.py', body: PROTOCOL_PY },
  ];
  const items = packaging === 'directory-twice' ? [...top, ...sub, ...sub] : [...top, ...sub];
  return tgz(items);
}

/** A multipart body as the later tool sends an install or an update: the file `package` (and fields). */
export function toolForm(pkg: Buffer | undefined, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (pkg !== undefined) form.set('package', new Blob([new Uint8Array(pkg)]), 'plugin.tar.gz');
  return form;
}
