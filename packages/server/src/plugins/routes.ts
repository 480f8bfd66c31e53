// Plugin API routes (docs/plugins.md), wire-compatible with the original plugin tool: multipart
// field `package` (file) and `is_enabled` (`true`/`True`/…); a PATCH carrying only `is_enabled`
// arrives form-encoded. Install and PATCH also take the original tool's repeated `secret` fields
// (docs/api.md, "Plugin secrets") and Charta's repeated `grant` and `revoke` fields (docs/plugins.md,
// "Grants"). One Fastify plugin: multipart parsing lives in its encapsulated scope only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import { baseUrlOf, ctxOf, type FeatureOptions } from '../http/request.ts';
import { pageBody, pageOf } from '../http/pagination.ts';
import { PageQuery } from '@charta/api';
import { invalid, problem, Problem, type FieldProblem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { EmptyBody } from '@charta/api';
import { DEFAULT_LIMITS } from '../inspection/index.ts';
import { installPlugin } from './install.ts';
import { fillMetadataSources } from './metadata-source.ts';
import { extractMetadata } from './extract-metadata.ts';
import { listPlugins } from './list.ts';
import { getPlugin } from './get.ts';
import { updatePlugin } from './update.ts';
import { deletePlugin } from './delete.ts';
import { downloadPackage } from './download.ts';
import { listSecrets } from './list-secrets.ts';
import { setSecrets } from './set-secrets.ts';
import { listDeadLetters } from './list-dead-letters.ts';
import { listPluginReads } from './list-reads.ts';
import { replayDeadLetter } from './replay-dead-letter.ts';
import { discardDeadLetter } from './discard-dead-letter.ts';
import { decodeSecretFields, MAX_SECRETS_PER_CHANGE, MAX_SECRET_BYTES, SECRET_FIELD, type SecretChange } from './secrets.ts';
import { pluginName } from './representation.ts';
import { GRANT_FIELD, grantChangeOf, MAX_GRANT_FIELDS, REVOKE_FIELD, type GrantChange } from './grant-change.ts';
import type { UploadedFile } from './package.ts';
import {
  DeadLetterPage,
  DeadLetterParams,
  DeadLetterSchema,
  DeletePluginQuery,
  PackageArchive,
  PackageMetadataSchema,
  PluginPage,
  PluginParams as params,
  PluginSchema,
  PluginReadSchema,
  PluginReadPage,
  PluginReadsQuery,
  SecretChangeBody,
  SecretListingSchema,
} from '@charta/api';

/**
 * Where the plugin API is served: Charta's path, and the path of the original tool from about
 * October 2024 on (docs/cli.md, "The original tool"). One set of handlers under both; only an
 * install of a plugin that exists answers differently (see `existsStatus`).
 */
export const PLUGIN_API_BASE = '/core/api/v1/plugins';
export const PLUGIN_IO_BASE = '/plugin-io/plugins';
const PREFIXES = [
  { base: PLUGIN_API_BASE, alias: false },
  { base: PLUGIN_IO_BASE, alias: true },
] as const;

/**
 * The status of `plugin_exists` on an install: 400 under /core/api/v1/plugins/ (the earlier tool
 * updates on a 400), 409 under /plugin-io/plugins/ (the later tool updates only on a 409).
 */
const existsStatus = (alias: boolean) => (alias ? 409 : 400);
const tags = ['Plugins'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }];

/** The fields that may be repeated: `secret` (base64 of `KEY=value` each), `grant`, `revoke`. */
const REPEATED = [SECRET_FIELD, GRANT_FIELD, REVOKE_FIELD] as const;
type RepeatedField = (typeof REPEATED)[number];
const isRepeated = (field: string): field is RepeatedField => (REPEATED as readonly string[]).includes(field);

interface Upload {
  file?: UploadedFile;
  fields: Record<string, string>;
  /** Each repeated field's values, in order. */
  repeated: Record<RepeatedField, string[]>;
}

/** The package file and the plain fields of a multipart, form-encoded or empty body. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  const fields: Record<string, string> = {};
  const repeated: Upload['repeated'] = { [SECRET_FIELD]: [], [GRANT_FIELD]: [], [REVOKE_FIELD]: [] };
  if (!request.isMultipart()) {
    const body = request.body;
    if (body !== undefined && body !== null) {
      if (typeof body !== 'object' || Array.isArray(body)) throw invalid([{ field: 'body', message: 'must be form fields' }]);
      for (const [k, v] of Object.entries(body)) {
        if (isRepeated(k) && (typeof v === 'string' || (Array.isArray(v) && v.every((s) => typeof s === 'string')))) {
          repeated[k].push(...(typeof v === 'string' ? [v] : (v as string[])));
          continue;
        }
        if (typeof v !== 'string') throw invalid([{ field: k, message: 'must be given once, as text' }]);
        fields[k] = v;
      }
    }
    return { fields, repeated };
  }
  try {
    return await readParts(request, fields, repeated);
  } catch (err) {
    // The multipart parser's own errors (no boundary, a malformed part, a body cut short) are the client's.
    if (err instanceof Problem || (err as { code?: unknown }).code !== undefined) throw err;
    throw problem('malformed_body', { detail: `The multipart body could not be read: ${err instanceof Error ? err.message : String(err)}` });
  }
}

async function readParts(request: FastifyRequest, fields: Record<string, string>, repeated: Upload['repeated']): Promise<Upload> {
  let file: UploadedFile | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'package' || file !== undefined) {
        await part.toBuffer();
        throw invalid([{ field: part.fieldname, message: 'send exactly one file, in the field `package`' }]);
      }
      file = { bytes: await part.toBuffer(), fileName: part.filename };
    } else if (part.valueTruncated) {
      throw invalid([{ field: part.fieldname, message: `is longer than ${FIELD_SIZE} bytes` }]);
    } else if (isRepeated(part.fieldname)) {
      repeated[part.fieldname].push(String(part.value));
    } else {
      if (Object.hasOwn(fields, part.fieldname)) throw invalid([{ field: part.fieldname, message: 'must be given once' }]);
      fields[part.fieldname] = String(part.value);
    }
  }
  return { file, fields, repeated };
}

/** The change the `secret` fields ask for; undefined when there are none. */
const secretsOf = ({ repeated }: Upload): SecretChange | undefined =>
  repeated[SECRET_FIELD].length === 0 ? undefined : decodeSecretFields(repeated[SECRET_FIELD]);

/** The change the `grant` and `revoke` fields ask for (400 for a name that is no grant); undefined when there are none. */
const grantsOf = ({ repeated }: Upload): GrantChange | undefined =>
  repeated[GRANT_FIELD].length + repeated[REVOKE_FIELD].length === 0
    ? undefined
    : grantChangeOf({ grant: repeated[GRANT_FIELD], revoke: repeated[REVOKE_FIELD] });

/** A multipart text field's limit: room for a secret of MAX_SECRET_BYTES, its name and base64's growth. */
const FIELD_SIZE = Math.ceil((MAX_SECRET_BYTES + 130) / 3) * 4 + 64;

/** `is_enabled` as the original tool sends it (Python's True/False) or as JSON-ish text. */
function enabledFlag(fields: Record<string, string>, fallback: boolean | undefined): boolean | undefined {
  const known = new Set(['is_enabled', 'package', ...REPEATED]);
  const unknown: FieldProblem[] = Object.keys(fields)
    .filter((k) => !known.has(k))
    .map((k) => ({ field: k, message: 'is not a known field' }));
  if (unknown.length > 0) throw invalid(unknown);
  const text = fields.is_enabled;
  if (text === undefined) return fallback;
  const value = { true: true, false: false, '1': true, '0': false }[text.trim().toLowerCase()];
  if (value === undefined) throw invalid([{ field: 'is_enabled', message: 'must be true or false (True/False accepted)' }]);
  return value;
}

export async function pluginRoutes(parent: FastifyInstance, { storage, publicUrl }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  await fillMetadataSources(storage);
  await app.register(multipart, {
    limits: {
      fileSize: DEFAULT_LIMITS.maxCompressedBytes,
      files: 2,
      // Room for one more secret, and one more grant or revoke, than a change may hold, so that
      // many is told as a 400 naming the limit.
      fields: MAX_SECRETS_PER_CHANGE + MAX_GRANT_FIELDS + 7,
      parts: MAX_SECRETS_PER_CHANGE + MAX_GRANT_FIELDS + 10,
      fieldSize: FIELD_SIZE,
      headerPairs: 100,
    },
    throwFileSizeLimit: true,
  });
  app.addSchema(PluginSchema);
  app.addSchema(SecretListingSchema);
  app.addSchema(DeadLetterSchema);
  app.addSchema(PluginReadSchema);
  app.addSchema(PackageMetadataSchema);
  const base = (request: FastifyRequest) => baseUrlOf(request, publicUrl);
  const problems = problemResponses;

  for (const { base: BASE, alias } of PREFIXES) {
    // The alias is the same operation: documented once, under /core/api/v1/plugins/ (docs/api.md).
    const hidden = alias ? { hide: true } : {};
    app.post(`${BASE}/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'Install a plugin (multipart: package, is_enabled, secret…, grant…)',
        response: { 201: Type.Ref('Plugin'), ...problems(400, 401, 403, ...(alias ? [409] : []), 413, 415) },
      },
      handler: async (request, reply) => {
        const upload = await readUpload(request);
        const isEnabled = enabledFlag(upload.fields, true)!;
        const outcome = await installPlugin(ctxOf(request, storage), base(request), {
          file: upload.file,
          isEnabled,
          secrets: secretsOf(upload),
          grants: grantsOf(upload),
        }).catch((err: unknown) => {
          if (err instanceof Problem && err.code === 'plugin_exists') throw err.withStatus(existsStatus(alias));
          throw err;
        });
        return reply.code(201).send(outcome.body);
      },
    });

    app.post(`${BASE}/extract-metadata/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: "Read a package's name, version and description without installing it",
        response: { 200: Type.Ref('PackageMetadata'), ...problems(400, 401, 403, 413, 415) },
      },
      handler: async (request) => {
        const upload = await readUpload(request);
        enabledFlag(upload.fields, undefined);
        return extractMetadata(ctxOf(request, storage), upload.file);
      },
    });

    app.get(`${BASE}/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'List plugins',
        querystring: PageQuery,
        response: { 200: PluginPage, ...problems(400, 401, 403) },
      },
      handler: async (request) => {
        const list = await listPlugins(ctxOf(request, storage), base(request), pageOf(request.query));
        return pageBody(base(request), `${BASE}/`, request.query, list);
      },
    });

    app.get(`${BASE}/:name/`, {
      schema: { ...hidden, tags, security, summary: 'Read a plugin', params, response: { 200: Type.Ref('Plugin'), ...problems(401, 403, 404) } },
      handler: async (request) => getPlugin(ctxOf(request, storage), base(request), pluginName(request.params.name)),
    });

    app.patch(`${BASE}/:name/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'Replace the package, set is_enabled, set secrets (repeated `secret` fields) and/or give and take back grants (repeated `grant`, `revoke`)',
        params,
        response: { 200: Type.Ref('Plugin'), ...problems(400, 401, 403, 404, 413, 415) },
      },
      handler: async (request) => {
        const name = pluginName(request.params.name);
        const upload = await readUpload(request);
        const outcome = await updatePlugin(ctxOf(request, storage), base(request), name, {
          file: upload.file,
          isEnabled: enabledFlag(upload.fields, undefined),
          secrets: secretsOf(upload),
          grants: grantsOf(upload),
        });
        return outcome.body;
      },
    });

    app.delete(`${BASE}/:name/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'Delete a plugin (disable it first, or force=true)',
        params,
        querystring: DeletePluginQuery,
        response: { 204: EmptyBody('Deleted'), ...problems(400, 401, 403, 404) },
      },
      handler: async (request, reply) => {
        const name = pluginName(request.params.name);
        await deletePlugin(ctxOf(request, storage), base(request), name, request.query.force?.toLowerCase() === 'true');
        return reply.code(204).send();
      },
    });

    app.get(`${BASE}/:name/secrets/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'The secret names the plugin declares or has set (never a value)',
        params,
        response: { 200: Type.Ref('SecretListing'), ...problems(401, 403, 404) },
      },
      handler: async (request) => listSecrets(ctxOf(request, storage), pluginName(request.params.name)),
    });

    app.patch(`${BASE}/:name/secrets/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'Set secrets ({"KEY": "value"}) and remove them ({"KEY": null}); answers the listing',
        params,
        body: SecretChangeBody,
        response: { 200: Type.Ref('SecretListing'), ...problems(400, 401, 403, 404, 415) },
      },
      handler: async (request) => setSecrets(ctxOf(request, storage), pluginName(request.params.name), request.body),
    });

    app.get(`${BASE}/:name/package/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'Download the package archive',
        params,
        response: {
          200: {
            description: 'The package archive: a wheel (application/zip) or a .tar.gz (application/gzip)',
            content: { 'application/zip': { schema: PackageArchive }, 'application/gzip': { schema: PackageArchive } },
          },
          ...problems(401, 403, 404),
        },
      },
      handler: async (request, reply) => {
        const row = await downloadPackage(ctxOf(request, storage), pluginName(request.params.name));
        const ext = row.format === 'wheel' ? 'whl' : 'tar.gz';
        return reply
          .header('content-type', row.format === 'wheel' ? 'application/zip' : 'application/gzip')
          .header('content-disposition', `attachment; filename="${row.name}-${row.version.replace(/[^A-Za-z0-9._+-]/g, '_')}.${ext}"`)
          .header('x-checksum-sha256', row.checksum)
          .send(Buffer.from(row.package));
      },
    });

    app.get(`${BASE}/:name/dead-letters/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: "The plugin's dead letters, newest first: POST events whose handler still failed after its last attempt",
        params,
        querystring: PageQuery,
        response: { 200: DeadLetterPage, ...problems(400, 401, 403, 404) },
      },
      handler: async (request) => {
        const name = pluginName(request.params.name);
        const list = await listDeadLetters(ctxOf(request, storage), name, pageOf(request.query));
        return pageBody(base(request), `${BASE}/${encodeURIComponent(name)}/dead-letters/`, request.query, list);
      },
    });

    app.get(`${BASE}/:name/reads/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: "What the plugin's handlers read of the record, newest first, from the audit trail (answered and refused reads)",
        params,
        querystring: PluginReadsQuery,
        response: { 200: PluginReadPage, ...problems(400, 401, 403, 404) },
      },
      handler: async (request) => {
        const name = pluginName(request.params.name);
        const list = await listPluginReads(ctxOf(request, storage), name, request.query, pageOf(request.query));
        return pageBody(base(request), `${BASE}/${encodeURIComponent(name)}/reads/`, request.query, list);
      },
    });

    app.post(`${BASE}/:name/dead-letters/:id/replay/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: "Deliver a dead letter's event again, to its one handler (the event keeps its id); answers the letter",
        params: DeadLetterParams,
        response: { 202: Type.Ref('DeadLetter'), ...problems(400, 401, 403, 404) },
      },
      handler: async (request, reply) => {
        const letter = await replayDeadLetter(ctxOf(request, storage), pluginName(request.params.name), Number(request.params.id));
        return reply.code(202).send(letter);
      },
    });

    app.delete(`${BASE}/:name/dead-letters/:id/`, {
      schema: {
        ...hidden,
        tags,
        security,
        summary: 'Discard a dead letter',
        params: DeadLetterParams,
        response: { 204: EmptyBody('Discarded'), ...problems(400, 401, 403, 404) },
      },
      handler: async (request, reply) => {
        await discardDeadLetter(ctxOf(request, storage), pluginName(request.params.name), Number(request.params.id));
        return reply.code(204).send();
      },
    });
  }
}
