// The plugin endpoints (docs/api.md, "Plugins"): an API key (raw in Authorization) or a token with
// the scope system/Plugins.*. Uploads speak the original tool's wire: multipart with the file
// field `package`, `is_enabled` as Python's `True`/`False`, repeated `secret` fields (base64 of
// `KEY=value`), repeated `grant` and `revoke` fields; a PATCH without a package is form-encoded,
// and empty when it changes nothing.
import type {
  DeadLetter as PluginDeadLetter,
  Paginated,
  Plugin,
  PluginRead,
  SecretChange as PluginSecretChange,
  SecretListing as PluginSecretListing,
} from '@charta/api';
import { paths } from './paths.ts';
import type { PageOptions } from './resources.ts';
import type { Transport } from './transport.ts';

/** A package file to upload: a `.tar.gz` or `.whl`, by name and content (a browser File is a Blob). */
export interface PluginPackage {
  name: string;
  data: Blob | Uint8Array | ArrayBuffer;
}

/** What an install or an update sends; everything is optional on an update. */
export interface PluginChange {
  package?: PluginPackage;
  /** Install default: true. */
  isEnabled?: boolean;
  /** Secrets to set, as `{KEY: value}` or `[KEY, value]` pairs in order. */
  secrets?: Record<string, string> | Array<[string, string]>;
  /** Grants to give (docs/plugins.md, "Grants"). */
  grants?: string[];
  /** Grants to take back (update only). */
  revokes?: string[];
}

/** POST /plugins/extract-metadata/: what the instance reads from a package without installing it. */
export interface PluginMetadata {
  name: string;
  version: string;
  description: string;
  format: string;
  source: string;
  root: string;
  files: unknown[];
  inflatedBytes: number;
  package_checksum: string;
  [extra: string]: unknown;
}

/** A downloaded package: its bytes, content type and the instance's SHA-256. */
export interface PluginDownload {
  bytes: Uint8Array;
  contentType: string | null;
  checksum: string | null;
  /** The file name of the answer's Content-Disposition, when it gives one. */
  filename: string | null;
}

/** Python's rendering of a bool, as the original tool sends `is_enabled`. */
export const pythonBool = (value: boolean) => (value ? 'True' : 'False');

/** base64 of the UTF-8 bytes of `text` (browser and Node alike). */
export function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The change's fields in wire order: is_enabled, secret…, grant…, revoke…. */
function fieldsOf(change: PluginChange): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  if (change.isEnabled !== undefined) fields.push(['is_enabled', pythonBool(change.isEnabled)]);
  const secrets = Array.isArray(change.secrets) ? change.secrets : Object.entries(change.secrets ?? {});
  for (const [key, value] of secrets) fields.push(['secret', base64Utf8(`${key}=${value}`)]);
  for (const grant of change.grants ?? []) fields.push(['grant', grant]);
  for (const revoke of change.revokes ?? []) fields.push(['revoke', revoke]);
  return fields;
}

function multipart(fields: Array<[string, string]>, pkg: PluginPackage | undefined): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  if (pkg !== undefined) {
    const type = pkg.name.toLowerCase().endsWith('.whl') ? 'application/zip' : 'application/gzip';
    const blob = pkg.data instanceof Blob ? pkg.data : new Blob([pkg.data instanceof Uint8Array ? new Uint8Array(pkg.data) : pkg.data], { type });
    form.set('package', blob, pkg.name);
  }
  return form;
}

/** The body of a change: multipart with a package, form-encoded without, none when empty. */
function changeBody(change: PluginChange): FormData | URLSearchParams | undefined {
  const fields = fieldsOf(change);
  if (change.package !== undefined) return multipart(fields, change.package);
  return fields.length > 0 ? new URLSearchParams(fields) : undefined;
}

export class PluginsApi {
  constructor(private readonly transport: Transport) {}

  /** GET /plugins/: one page (limit 1–1000, default 20). */
  async list(options: PageOptions = {}): Promise<Paginated<Plugin>> {
    return (await this.transport.send<Paginated<Plugin>>('GET', paths.plugins(), { query: { limit: options.limit, offset: options.offset } })).data;
  }

  async get(name: string): Promise<Plugin> {
    return (await this.transport.send<Plugin>('GET', paths.plugin(name))).data;
  }

  /** POST /plugins/ (multipart) → 201; an installed name → ChartaApiError 400 plugin_exists. */
  async install(pkg: PluginPackage, change: Omit<PluginChange, 'package' | 'revokes'> = {}): Promise<Plugin> {
    return (await this.transport.send<Plugin>('POST', paths.plugins(), { body: multipart(fieldsOf(change), pkg) })).data;
  }

  /** POST /plugins/extract-metadata/: reads a package without installing it. */
  async extractMetadata(pkg: PluginPackage): Promise<PluginMetadata> {
    return (await this.transport.send<PluginMetadata>('POST', paths.pluginExtractMetadata(), { body: multipart([], pkg) })).data;
  }

  /** PATCH /plugins/{name}/: a new package, the enabled flag, secrets, grants given or revoked. */
  async update(name: string, change: PluginChange = {}): Promise<Plugin> {
    return (await this.transport.send<Plugin>('PATCH', paths.plugin(name), { body: changeBody(change) })).data;
  }

  enable(name: string): Promise<Plugin> {
    return this.update(name, { isEnabled: true });
  }

  disable(name: string): Promise<Plugin> {
    return this.update(name, { isEnabled: false });
  }

  /** DELETE /plugins/{name}/ → 204; an enabled plugin needs `force` (else 400 plugin_enabled). */
  async delete(name: string, options: { force?: boolean } = {}): Promise<void> {
    await this.transport.send<unknown>('DELETE', paths.plugin(name), { query: { force: options.force === true ? 'true' : undefined } });
  }

  /** GET /plugins/{name}/package/: the installed archive. */
  async download(name: string): Promise<PluginDownload> {
    const answer = await this.transport.send<Uint8Array>('GET', paths.pluginPackage(name), { bytes: true });
    const filename = /filename="?([^";]+)"?/i.exec(answer.headers.get('content-disposition') ?? '')?.[1] ?? null;
    return { bytes: answer.data, contentType: answer.headers.get('content-type'), checksum: answer.headers.get('x-checksum-sha256'), filename };
  }

  /** GET /plugins/{name}/secrets/: the declared and set names, whether each is set, never a value. */
  async secrets(name: string): Promise<PluginSecretListing> {
    return (await this.transport.send<PluginSecretListing>('GET', paths.pluginSecrets(name))).data;
  }

  /**
   * PATCH /plugins/{name}/secrets/: `{KEY: "value"}` sets, `{KEY: null}` removes, in one
   * write; resolves to the listing. A name the manifest does not declare, a value over 4096 bytes
   * or with a NUL → ChartaApiError 400 validation_failed, nothing changed.
   */
  async setSecrets(name: string, change: PluginSecretChange): Promise<PluginSecretListing> {
    return (await this.transport.send<PluginSecretListing>('PATCH', paths.pluginSecrets(name), { json: change })).data;
  }

  /** GET /plugins/{name}/dead-letters/: newest first. */
  async deadLetters(name: string, options: PageOptions = {}): Promise<Paginated<PluginDeadLetter>> {
    const query = { limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<PluginDeadLetter>>('GET', paths.pluginDeadLetters(name), { query })).data;
  }

  /** GET /plugins/{name}/reads/: what its handlers read of the record, newest first (optionally of one patient). */
  async reads(name: string, options: PageOptions & { patientKey?: string } = {}): Promise<Paginated<PluginRead>> {
    const query = { patient_key: options.patientKey, limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<PluginRead>>('GET', paths.pluginReads(name), { query })).data;
  }

  /** POST …/dead-letters/{id}/replay/ → 202 the dead letter, its event back in the outbox. */
  async replayDeadLetter(name: string, id: string | number): Promise<PluginDeadLetter> {
    return (await this.transport.send<PluginDeadLetter>('POST', paths.pluginDeadLetterReplay(name, id))).data;
  }

  /** DELETE …/dead-letters/{id}/ → 204. */
  async discardDeadLetter(name: string, id: string | number): Promise<void> {
    await this.transport.send<unknown>('DELETE', paths.pluginDeadLetter(name, id));
  }
}
