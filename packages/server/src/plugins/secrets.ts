// What the secret operations share (docs/plugins.md, "Secrets"): a change of secrets (a name →
// its new value, or null to remove it) read from JSON or from the original tool's repeated
// `secret` fields, checked against the names the plugin's manifest declares, written with its
// audit row, and the listing the endpoints answer. Values never leave this module but into
// the plugin_secrets table, sealed with the instance's key (docs/operations.md, "Sealed secrets"):
// no response, audit row or log line holds one.
import type { Ctx } from '../context.ts';
import type { Writer } from '../storage/transaction.ts';
import { invalid, type FieldProblem } from '../http/problem.ts';
import { isoMicros } from '../lib/time.ts';
import { getPluginPackage, updatePlugin } from '../storage/plugins-repository.ts';
import { listPluginSecretNames, removePluginSecret, setPluginSecret } from '../storage/plugin-secrets-repository.ts';
import { inspectPackage, type PackageMetadata } from '../inspection/index.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Keyring } from '../lib/sealing.ts';

/** A name → its new value, or null to remove it. */
export type SecretChange = Record<string, string | null>;

/** Longest value, in bytes of UTF-8. */
export const MAX_SECRET_BYTES = 4096;
/** Most secrets one request may set or remove. */
export const MAX_SECRETS_PER_CHANGE = 100;
/** The multipart / form field the original tool sends each secret in, as base64 of `KEY=value`. */
export const SECRET_FIELD = 'secret';

export interface SecretListing {
  results: Array<{ name: string; declared: boolean; is_set: boolean; updated_at: string | null }>;
}

/** The secret names a package's manifest declares ([] for a package without a CHARTA_MANIFEST.json). */
export const declaredSecrets = (metadata: PackageMetadata): string[] => metadata.manifest?.secrets ?? [];

/** The names the stored package of a plugin declares (its package read again: the manifest is not stored apart). */
export async function storedDeclaredSecrets(db: Kysely<Database>, pluginName: string): Promise<string[]> {
  const stored = await getPluginPackage(db, pluginName);
  if (stored === undefined) return [];
  const inspection = await inspectPackage(Buffer.from(stored.package));
  return inspection.ok ? declaredSecrets(inspection.metadata) : [];
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The change the original tool's repeated `secret` fields ask for: each is base64 of `KEY=value`
 * (split at the first `=`). Every field that cannot be read is a reason, named `secret[i]`; the
 * reasons never quote a value.
 */
export function decodeSecretFields(fields: string[]): SecretChange {
  const change: SecretChange = {};
  const errors: FieldProblem[] = [];
  fields.forEach((field, i) => {
    const where = `${SECRET_FIELD}[${i}]`;
    const text = field.trim();
    if (!STRICT_BASE64.test(text)) return errors.push({ field: where, message: 'must be base64 of KEY=value' });
    let decoded: string;
    try {
      decoded = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'));
    } catch {
      return errors.push({ field: where, message: 'must be base64 of UTF-8 text KEY=value' });
    }
    const eq = decoded.indexOf('=');
    if (eq <= 0) return errors.push({ field: where, message: 'must be base64 of KEY=value (no `=` after a name)' });
    const name = decoded.slice(0, eq);
    if (Object.hasOwn(change, name)) return errors.push({ field: where, message: `sets ${JSON.stringify(name.slice(0, 128))} a second time` });
    change[name] = decoded.slice(eq + 1);
  });
  if (errors.length > 0) throw invalid(errors);
  return change;
}

/**
 * Every reason the change cannot be made (field: `secrets.<NAME>`, or `secrets`): more than
 * MAX_SECRETS_PER_CHANGE names, a name the manifest does not declare (removing one that is set
 * is allowed, so names a new version dropped can be cleaned up), a value over MAX_SECRET_BYTES
 * or holding a NUL character. No reason quotes a value.
 */
export function secretChangeProblems(change: SecretChange, declared: readonly string[], setNames: ReadonlySet<string>): FieldProblem[] {
  const errors: FieldProblem[] = [];
  const names = Object.keys(change);
  if (names.length > MAX_SECRETS_PER_CHANGE) errors.push({ field: 'secrets', message: `at most ${MAX_SECRETS_PER_CHANGE} secrets may be set at once` });
  const known = new Set(declared);
  for (const name of names) {
    const field = `secrets.${name.slice(0, 128)}`;
    const value = change[name];
    if (!known.has(name) && !(value === null && setNames.has(name))) {
      errors.push({
        field,
        message:
          known.size === 0 ? 'is not declared: the manifest declares no secrets' : `is not declared in the manifest's secrets (${[...known].join(', ')})`,
      });
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') errors.push({ field, message: 'must be a string, or null to remove it' });
    else if (value.includes('\u0000')) errors.push({ field, message: 'must not contain a NUL character' });
    else if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) errors.push({ field, message: `must be at most ${MAX_SECRET_BYTES} bytes` });
  }
  return errors;
}

/** The names a change sets and removes, sorted: what audit rows and log lines say of it. */
export interface SecretNames {
  set: string[];
  removed: string[];
}

/**
 * Checks the change against `declared` and writes it inside the caller's transaction, each value
 * sealed with `keyring` (the process's: ctx.keyring), with an audit row naming the secrets set and
 * removed (never a value), and bumps the plugin's updated_at (the runtime notices changes by it).
 * Throws 400 listing every reason, before anything is written. Without a keyring nothing is set:
 * a value is never stored in plaintext.
 */
export async function writeSecrets(
  w: Pick<Writer, 'trx' | 'audit'>,
  keyring: Keyring | undefined,
  pluginName: string,
  change: SecretChange,
  declared: readonly string[],
  now: number,
): Promise<SecretNames> {
  const setNames = new Set((await listPluginSecretNames(w.trx, pluginName)).map((r) => r.name));
  const errors = secretChangeProblems(change, declared, setNames);
  if (errors.length > 0) throw invalid(errors);
  const names: SecretNames = { set: [], removed: [] };
  for (const name of Object.keys(change).sort()) {
    const value = change[name];
    if (value === null || value === undefined) {
      if (await removePluginSecret(w.trx, pluginName, name)) names.removed.push(name);
    } else {
      if (keyring === undefined) throw new Error('no secret key is loaded in this process: a plugin secret cannot be sealed, so it is not set');
      await setPluginSecret(w.trx, keyring, pluginName, name, value, now);
      names.set.push(name);
    }
  }
  if (names.set.length + names.removed.length > 0) {
    await updatePlugin(w.trx, pluginName, { updated_at: now });
    await w.audit({
      action: 'plugin.secrets_changed',
      entityType: 'plugin',
      entityId: pluginName,
      before: null,
      after: { set: names.set, removed: names.removed },
    });
  }
  return names;
}

/** The listing: the declared names, in the manifest's order, then any other name set, by name. */
export async function secretListing(db: Kysely<Database>, pluginName: string, declared: readonly string[]): Promise<SecretListing> {
  const set = new Map((await listPluginSecretNames(db, pluginName)).map((r) => [r.name, r.updated_at]));
  const declaredSet = new Set(declared);
  const row = (name: string) => {
    const updated = set.get(name);
    return { name, declared: declaredSet.has(name), is_set: updated !== undefined, updated_at: updated === undefined ? null : isoMicros(updated) };
  };
  return { results: [...declared.map(row), ...[...set.keys()].filter((n) => !declaredSet.has(n)).map(row)] };
}

/** Whether a change set or removed any secret. */
export const secretsMoved = (names: SecretNames): boolean => names.set.length + names.removed.length > 0;

/** After the commit: the log stream line, when anything changed (the runtime hears of it by a signal: plugins/signal.ts). */
export function secretsChanged(ctx: Ctx, pluginName: string, names: SecretNames): void {
  if (!secretsMoved(names)) return;
  ctx.logs?.emit({ level: 'info', event: `plugin ${pluginName} secrets ${describeNames(names)}`, plugin: pluginName, request_id: ctx.requestId });
}

const describeNames = (names: SecretNames) =>
  [names.set.length > 0 ? `set: ${names.set.join(', ')}` : '', names.removed.length > 0 ? `removed: ${names.removed.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
