// The API's OpenAPI 3.1 document (/openapi.json) and its reference page (/docs), both public.
// The document is generated from the route schemas of every feature
// (docs/api.md, "The OpenAPI document"); what a route schema cannot say without changing how a request is validated (the
// operation ids, the response headers, the multipart bodies, the OAuth 2.0 scopes, enums whose
// check stays in the operation) is added here, so the document tells a generated client the whole
// truth (test/openapi-client.test.ts keeps it so).
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { COMMAND_EVENT_PREFIXES, COMMAND_STATES, GRANT_NAMES } from '@charta/api/constants';
import { problemResponses } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route never touches the database (liveness): it documents no database fault. */
    database?: false;
  }
}

/** The scopes a token may carry (docs/api.md, "Authentication"). */
const CLINICAL_SCOPE = 'user/*.*';
const PLUGIN_SCOPE = 'system/Plugins.*';

/** operationId of every operation, by `METHOD path` as the document writes it. A route missing here fails the start. */
const OPERATION_IDS: Record<string, string> = {
  'POST /auth/token/': 'issueToken',
  'POST /core/api/v1/patients/': 'createPatient',
  'GET /core/api/v1/patients': 'listPatients',
  'GET /core/api/v1/patients/{key}': 'getPatient',
  'GET /core/api/v1/staff/{key}': 'getStaffMember',
  'GET /core/api/v1/audit/': 'listAuditTrail',
  'GET /core/api/v1/patients/{key}/metadata/': 'listPatientMetadata',
  'GET /core/api/v1/patients/{key}/conditions/': 'listConditions',
  'GET /core/api/v1/patients/{key}/medications/': 'listMedications',
  'GET /core/api/v1/patients/{key}/goals/': 'listGoals',
  'GET /core/api/v1/patients/{key}/banner-alerts/': 'listBannerAlerts',
  'POST /core/api/v1/notes/': 'createNote',
  'GET /core/api/v1/notes': 'listNotes',
  'GET /core/api/v1/notes/{uuid}': 'getNote',
  'POST /core/api/v1/notes/{uuid}/lock/': 'lockNote',
  'POST /core/api/v1/notes/{uuid}/unlock/': 'unlockNote',
  'DELETE /core/api/v1/notes/{uuid}/': 'deleteNote',
  'GET /core/api/v1/commands': 'listCommands',
  'POST /core/api/v1/commands/': 'createCommand',
  'GET /core/api/v1/commands/{uuid}': 'getCommand',
  'PATCH /core/api/v1/commands/{uuid}/': 'updateCommand',
  'DELETE /core/api/v1/commands/{uuid}/': 'deleteCommand',
  'POST /core/api/v1/commands/{uuid}/commit/': 'commitCommand',
  'POST /core/api/v1/commands/{uuid}/enter-in-error/': 'enterCommandInError',
  'GET /core/api/v1/commands/{uuid}/fields/': 'getCommandFields',
  'GET /core/api/v1/commands/{uuid}/fields/{field}/autocomplete/': 'autocompleteCommandField',
  'POST /core/api/v1/plugins/': 'installPlugin',
  'GET /core/api/v1/plugins/': 'listPlugins',
  'POST /core/api/v1/plugins/extract-metadata/': 'extractPluginMetadata',
  'GET /core/api/v1/plugins/{name}/': 'getPlugin',
  'PATCH /core/api/v1/plugins/{name}/': 'updatePlugin',
  'DELETE /core/api/v1/plugins/{name}/': 'deletePlugin',
  'GET /core/api/v1/plugins/{name}/secrets/': 'listPluginSecrets',
  'PATCH /core/api/v1/plugins/{name}/secrets/': 'setPluginSecrets',
  'GET /core/api/v1/plugins/{name}/package/': 'downloadPluginPackage',
  'GET /core/api/v1/plugins/{name}/dead-letters/': 'listDeadLetters',
  'GET /core/api/v1/plugins/{name}/reads/': 'listPluginReads',
  'POST /core/api/v1/plugins/{name}/dead-letters/{id}/replay/': 'replayDeadLetter',
  'DELETE /core/api/v1/plugins/{name}/dead-letters/{id}/': 'discardDeadLetter',
  'POST /core/api/v1/admin/api-keys/': 'createApiKey',
  'GET /core/api/v1/admin/api-keys/': 'listApiKeys',
  'POST /core/api/v1/admin/api-keys/{id}/revoke/': 'revokeApiKey',
  'POST /core/api/v1/admin/oauth-clients/': 'createOAuthClient',
  'GET /core/api/v1/admin/oauth-clients/': 'listOAuthClients',
  'POST /core/api/v1/admin/oauth-clients/{client_id}/revoke/': 'revokeOAuthClient',
  'POST /core/api/v1/admin/staff/': 'createStaff',
  'GET /core/api/v1/admin/staff/': 'listStaff',
  'POST /core/api/v1/admin/lab-partners/': 'createLabPartner',
  'GET /core/api/v1/admin/lab-partners/': 'listLabPartners',
  'POST /core/api/v1/admin/lab-partners/{id}/tests/': 'createLabTest',
  'GET /core/api/v1/admin/lab-partners/{id}/tests/': 'listLabTests',
  'POST /core/api/v1/admin/pharmacies/': 'createPharmacy',
  'GET /core/api/v1/admin/pharmacies/': 'listPharmacies',
  'POST /core/api/v1/admin/reason-for-visit-codings/': 'createReasonForVisitCoding',
  'GET /core/api/v1/admin/reason-for-visit-codings/': 'listReasonForVisitCodings',
  'POST /core/api/v1/admin/questionnaires/': 'createQuestionnaire',
  'GET /core/api/v1/admin/questionnaires/': 'listQuestionnaires',
  'POST /core/api/v1/admin/educational-materials/': 'createEducationalMaterial',
  'GET /core/api/v1/admin/educational-materials/': 'listEducationalMaterials',
  'POST /core/api/v1/admin/dispense-units/': 'createDispenseUnit',
  'GET /core/api/v1/admin/dispense-units/': 'listDispenseUnits',
  'GET /core/api/v1/logging/recent/': 'listRecentLogs',
  'GET /core/api/v1/logging/': 'streamLogs',
  'GET /core/api/v1/changes/': 'streamChanges',
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /metrics': 'getMetrics',
};

const header = (description: string, schema: object, required = false) => ({ description, required, schema });
/** Response headers, as components.headers (referenced by name from the responses). */
const HEADERS = {
  'X-Request-Id': header('The id of the request, as the logs and the log stream name it', { type: 'string' }, true),
  ETag: header("The command's version: send it back in If-Match", { type: 'string' }, true),
  'Idempotent-Replayed': header('Present when the answer is the replay of an earlier request with the same Idempotency-Key', {
    type: 'string',
    enum: ['true'],
  }),
  'Retry-After': header('Seconds to wait before trying again', { type: 'integer', minimum: 0 }),
  'WWW-Authenticate': header('The authentication scheme the API expects', { type: 'string' }),
  'X-RateLimit-Limit': header('Requests allowed in the window', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Remaining': header('Requests left in the window', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Reset': header('Seconds until the window resets', { type: 'integer', minimum: 0 }),
  'X-Checksum-Sha256': header('SHA-256 of the package archive, hexadecimal', { type: 'string' }, true),
  'Content-Disposition': header('attachment; filename="<name>-<version>.<whl|tar.gz>"', { type: 'string' }, true),
} as const;
type HeaderName = keyof typeof HEADERS;

const binary = { type: 'string', format: 'binary', description: 'The package archive (.tar.gz or .whl)' };
const repeatedText = (description: string, items: object = { type: 'string' }) => ({ type: 'array', items, description });
/** The multipart (and form) fields of plugin install, update and extract-metadata (plugins/routes.ts). */
function pluginForm(packageRequired: boolean, withChanges: boolean) {
  const properties: Record<string, object> = {
    package: binary,
    is_enabled: { type: 'string', description: 'true or false (True/False, 1/0 accepted)' },
  };
  if (withChanges) {
    properties.secret = repeatedText('Repeated: base64 of KEY=value, one secret each');
    properties.grant = repeatedText('Repeated: a grant to give', { type: 'string', enum: GRANT_NAMES });
    properties.revoke = repeatedText('Repeated: a grant to take back', { type: 'string', enum: GRANT_NAMES });
  }
  return { type: 'object', properties, required: packageRequired ? ['package'] : [], additionalProperties: false };
}
const multipart = (schema: object) => ({ 'multipart/form-data': { schema } });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** What the route schemas cannot say, added to the generated document (see the file's head). */
export function completeDocument(doc: Json, publicUrl: string | undefined): Json {
  doc.servers = [{ url: publicUrl ?? '/', description: publicUrl === undefined ? 'This instance' : 'The public URL of this instance' }];
  doc.components ??= {};
  doc.components.headers = Object.fromEntries(Object.entries(HEADERS).map(([name, h]) => [name, h]));
  const headerRefs = (...names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!METHODS.includes(method)) continue;
      const id = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
      if (id === undefined) throw new Error(`openapi: no operationId for ${method.toUpperCase()} ${path} (http/openapi.ts OPERATION_IDS)`);
      op.operationId = id;
      // A token's scopes: the plugin tool's routes and the logs need system/Plugins.*, the rest user/*.*.
      if (Array.isArray(op.security)) {
        const scope = path.startsWith('/core/api/v1/plugins/') || path.startsWith('/core/api/v1/logging/') ? PLUGIN_SCOPE : CLINICAL_SCOPE;
        op.security = op.security.map((req: Json) => ('bearer' in req ? { ...req, bearer: [scope] } : req));
      }
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const names: HeaderName[] = status === '101' ? [] : ['X-Request-Id'];
        if (status === '401') names.push('WWW-Authenticate');
        if (status === '503' || status === '429') names.push('Retry-After');
        if (path === '/auth/token/') names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');
        const command = response.content?.['application/json']?.schema?.$ref === '#/components/schemas/Command';
        if (command) names.push('ETag');
        if (command && (method === 'post' || op.operationId === 'createCommand')) names.push('Idempotent-Replayed');
        if (id === 'downloadPluginPackage' && status === '200') names.push('X-Checksum-Sha256', 'Content-Disposition');
        if (names.length > 0) response.headers = { ...response.headers, ...headerRefs(...names) };
      }
    }
  }
  const ops = doc.paths;
  // The token endpoint takes no credentials (the client's own are in the body or HTTP Basic).
  ops['/auth/token/'].post.security = [];
  // Multipart (and, for a change of is_enabled, secrets or grants alone, form-encoded) plugin bodies.
  ops['/core/api/v1/plugins/'].post.requestBody = { required: true, content: multipart(pluginForm(true, true)) };
  ops['/core/api/v1/plugins/extract-metadata/'].post.requestBody = { required: true, content: multipart(pluginForm(true, false)) };
  ops['/core/api/v1/plugins/{name}/'].patch.requestBody = {
    required: true,
    content: { ...multipart(pluginForm(false, true)), 'application/x-www-form-urlencoded': { schema: pluginForm(false, true) } },
  };
  // schemaKey names a kind; the check stays in the operation, whose 400 (unknown_schema_key)
  // names the known kinds, so the enum is the document's only (validating it would change that 400).
  const kinds = Object.keys(COMMAND_EVENT_PREFIXES);
  for (const media of Object.values<Json>(ops['/core/api/v1/commands/'].post.requestBody.content)) {
    media.schema.properties.schemaKey = { ...media.schema.properties.schemaKey, enum: kinds };
  }
  // The same for the filters whose values the list operations check (their 400 names the values).
  const queryEnum = (op: Json, name: string, values: readonly string[]) => {
    const parameter = (op.parameters as Json[]).find((p) => p.in === 'query' && p.name === name);
    if (parameter === undefined) throw new Error(`openapi: no query parameter ${name}`);
    parameter.schema = { ...parameter.schema, enum: values };
  };
  queryEnum(ops['/core/api/v1/commands'].get, 'schema_key', kinds);
  queryEnum(ops['/core/api/v1/commands'].get, 'state', COMMAND_STATES);
  queryEnum(ops['/core/api/v1/notes'].get, 'deleted', ['true', 'false']);
  return doc;
}

export async function registerOpenApi(app: FastifyInstance, version: string, publicUrl?: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Charta API',
        version,
        description: 'Clinical Commands API, notes and patients. Errors are RFC 9457 problem details; see docs/errors.md.',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials: POST /auth/token/ answers a bearer access token, sent as `Authorization: Bearer <token>`',
            flows: {
              clientCredentials: {
                tokenUrl: '/auth/token/',
                scopes: {
                  [CLINICAL_SCOPE]: 'The Commands, Notes, Patients and chart APIs, as the client staff member',
                  [PLUGIN_SCOPE]: 'The plugin tool: plugins, their secrets and dead letters, the logs',
                },
              },
            },
          },
          apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'API key (plugin tool, admin): `Authorization: <key>`' },
          metricsToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'GET /metrics only: the token the operator set in CHARTA_METRICS_TOKEN (docs/operations.md, "Monitoring")',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (document) => completeDocument((document as { openapiObject: Json }).openapiObject, publicUrl),
  });
  // The API reference page and its assets are public, like /openapi.json.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...(route.config ?? {}), public: true };
    // Every API route that uses the database can answer its faults: 503 for any, 507 (full) for
    // a write (docs/api.md, "When the database is away"). Routes documenting their own keep it.
    // Every write also reads a body, even one that takes none: too large is 413, a content type
    // with no parser 415.
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (response === undefined || route.config?.database === false) return;
    const methods = [route.method].flat();
    const faults = methods.every((m) => m === 'GET' || m === 'HEAD') ? problemResponses(503) : problemResponses(413, 415, 503, 507);
    route.schema!.response = { ...faults, ...response };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, uiHooks: {} });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
