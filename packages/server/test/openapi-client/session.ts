// A session through a client generated from /openapi.json as an outside team would generate it
// (openapi-typescript, then openapi-fetch), driving every operation of the document. The test
// (../openapi-client.test.ts) generates `./schema.ts` next to a copy of this file, type-checks the
// copy with tsc (strict) and runs it: no cast, no `any`, no ts-ignore may be needed here, and every
// response is validated against the document by the test's middleware.
// Not part of the repository's typecheck or lint (its schema.ts exists only at test time).
import assert from 'node:assert/strict';
import type { Client } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

type Api = Client<paths>;
type Command = components['schemas']['Command'];
type Kind = Command['schema_key'];
type FieldType = components['schemas']['Fields']['fields'][number]['type'];

export interface SessionInput {
  /** Bearer token of a client with user/*.* and system/Plugins.* */
  clinical: Api;
  /** The API key (plugin tool, admin) */
  tool: Api;
  /** No credentials */
  anonymous: Api;
  clientId: string;
  clientSecret: string;
  /** A plugin package (.tar.gz) of the plugin `pluginName`, declaring the secret TOKEN */
  pluginPackage: Blob;
  pluginName: string;
}

/** The data of a response of the expected status (openapi-fetch: `data` on 2xx, `error` otherwise). */
function must<T>(result: { data?: T; error?: unknown; response: Response }, status: number): T {
  assert.equal(result.response.status, status, `${result.response.url}: ${result.response.status} ${JSON.stringify(result.error)}`);
  assert.ok(result.data !== undefined, `${result.response.url}: no body`);
  return result.data;
}
function status(result: { response: Response }, expected: number): void {
  assert.equal(result.response.status, expected, `${result.response.url}: ${result.response.status}`);
}

/** A multipart body of the plugin routes: the file and the repeated fields. */
interface PluginForm {
  package?: Blob;
  is_enabled?: string;
  secret?: string[];
  grant?: string[];
  revoke?: string[];
}
function multipart(body: PluginForm): FormData {
  const form = new FormData();
  if (body.is_enabled !== undefined) form.set('is_enabled', body.is_enabled);
  for (const field of ['secret', 'grant', 'revoke'] as const) for (const value of body[field] ?? []) form.append(field, value);
  if (body.package !== undefined) form.set('package', body.package, 'plugin.tar.gz');
  return form;
}

export async function session({ clinical, tool, anonymous, clientId, clientSecret, pluginPackage, pluginName }: SessionInput): Promise<void> {
  // Health and the token endpoint: no credentials.
  assert.equal(must(await anonymous.GET('/healthz'), 200).status, 'ok');
  assert.equal(must(await anonymous.GET('/readyz'), 200).status, 'ok');
  // The metrics: the Prometheus text format, for an admin API key (docs/operations.md, "Monitoring").
  assert.equal((await anonymous.GET('/metrics', { parseAs: 'text' })).response.status, 401);
  assert.match(must(await tool.GET('/metrics', { parseAs: 'text' }), 200), /^# HELP charta_http_requests_total /m);
  const token = must(
    await anonymous.POST('/auth/token/', {
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    200,
  );
  assert.equal(token.token_type, 'Bearer');
  const refused = await anonymous.POST('/auth/token/', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: 'wrong' } });
  assert.equal(refused.response.status, 401);
  assert.equal(refused.error?.code, 'invalid_client');
  const anonymousList = await anonymous.GET('/core/api/v1/commands');
  assert.equal(anonymousList.error?.status, 401);

  // Patients and notes.
  const patient = must(await clinical.POST('/core/api/v1/patients/', { body: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' } }), 201);
  const patientKey: string = patient.key;
  assert.equal(must(await clinical.GET('/core/api/v1/patients/{key}', { params: { path: { key: patientKey } } }), 200).key, patientKey);
  // The change stream, asked for without an upgrade.
  assert.equal((await clinical.GET('/core/api/v1/changes/', { params: { query: { patient_key: patientKey } } })).error?.status, 426);
  assert.ok(must(await clinical.GET('/core/api/v1/patients', { params: { query: { name: 'Lovelace', limit: 5, offset: 0 } } }), 200).count >= 1);
  const note = must(await clinical.POST('/core/api/v1/notes/', { body: { patientKey, noteType: 'encounter', title: 'Visit' } }), 201);
  const noteKey: string = note.uuid;
  assert.equal(must(await clinical.GET('/core/api/v1/notes/{uuid}', { params: { path: { uuid: noteKey } } }), 200).uuid, noteKey);
  assert.ok(must(await clinical.GET('/core/api/v1/notes', { params: { query: { patient_key: patientKey, deleted: 'false', limit: 10 } } }), 200).count >= 1);

  // Commands: create (JSON, replayed; form), read, list, change, fields, autocomplete, commit, enter in error, delete.
  const kind: Kind = 'assess';
  const created = await clinical.POST('/core/api/v1/commands/', {
    body: { schemaKey: kind, noteKey, values: { narrative: 'Stable' } },
    params: { header: { 'idempotency-key': 'openapi-session-1' } },
  });
  const command: Command = must(created, 201);
  assert.equal(command.schema_key, 'assess');
  assert.ok(!Number.isNaN(Date.parse(command.created_at)));
  // The audit trail has it (the admin key), and the clinical token may not read it.
  const trail = must(await tool.GET('/core/api/v1/audit/', { params: { query: { command: command.uuid, limit: 10 } } }), 200);
  assert.ok(trail.results.some((e) => e.action === 'command.created' && e.entity_id === command.uuid));
  assert.equal((await clinical.GET('/core/api/v1/audit/', { params: { query: {} } })).error?.status, 403);
  // Who wrote it, by name.
  const author = must(await clinical.GET('/core/api/v1/staff/{key}', { params: { path: { key: command.originated_by } } }), 200);
  assert.equal(author.key, command.originated_by);
  assert.equal(typeof author.name, 'string');
  const replayed = await clinical.POST('/core/api/v1/commands/', {
    body: { schemaKey: kind, noteKey, values: { narrative: 'Stable' } },
    params: { header: { 'idempotency-key': 'openapi-session-1' } },
  });
  assert.equal(must(replayed, 201).uuid, command.uuid);
  assert.equal(replayed.response.headers.get('idempotent-replayed'), 'true');
  const planned = must(
    await clinical.POST('/core/api/v1/commands/', {
      body: { schemaKey: 'plan', noteKey, values: JSON.stringify({ narrative: 'Rest' }) },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    201,
  );
  const uuid = command.uuid;
  const read = await clinical.GET('/core/api/v1/commands/{uuid}', { params: { path: { uuid } } });
  const etag = read.response.headers.get('etag') ?? '';
  assert.equal(must(read, 200).uuid, uuid);
  const page = must(
    await clinical.GET('/core/api/v1/commands', {
      params: { query: { note_key: noteKey, schema_key: kind, state: 'staged', ordering: '-created_at', limit: 10, offset: 0 } },
    }),
    200,
  );
  assert.equal(page.count, 1);
  const stale = await clinical.PATCH('/core/api/v1/commands/{uuid}/', {
    params: { path: { uuid }, header: { 'if-match': '"stale"' } },
    body: { values: { narrative: 'Worse' } },
  });
  assert.equal(stale.error?.status, 412);
  const changed = must(
    await clinical.PATCH('/core/api/v1/commands/{uuid}/', {
      params: { path: { uuid }, header: { 'if-match': etag } },
      body: { values: { narrative: 'Better' } },
    }),
    200,
  );
  assert.equal(changed.data.narrative, 'Better');
  const fields = must(await clinical.GET('/core/api/v1/commands/{uuid}/fields/', { params: { path: { uuid } } }), 200);
  const condition = fields.fields.find((f) => f.name === 'condition');
  const autocomplete: FieldType = 'AutocompleteField';
  assert.equal(condition?.type, autocomplete);
  const options = must(
    await clinical.GET('/core/api/v1/commands/{uuid}/fields/{field}/autocomplete/', {
      params: { path: { uuid, field: 'condition' }, query: { search_term: 'a' } },
    }),
    200,
  );
  assert.ok(Array.isArray(options));
  const committed = must(
    await clinical.POST('/core/api/v1/commands/{uuid}/commit/', {
      params: { path: { uuid: planned.uuid }, header: { 'idempotency-key': 'openapi-session-commit' } },
    }),
    200,
  );
  assert.equal(committed.state, 'committed');
  const inError = must(await clinical.POST('/core/api/v1/commands/{uuid}/enter-in-error/', { params: { path: { uuid: planned.uuid } } }), 200);
  assert.equal(inError.state, 'entered_in_error');
  const current = await clinical.GET('/core/api/v1/commands/{uuid}', { params: { path: { uuid } } });
  const deleteTag = current.response.headers.get('etag') ?? '';
  status(await clinical.DELETE('/core/api/v1/commands/{uuid}/', { params: { path: { uuid }, header: { 'if-match': deleteTag } } }), 200);
  const missing = await clinical.GET('/core/api/v1/commands/{uuid}', { params: { path: { uuid } } });
  assert.equal(missing.error?.status, 404);

  // The chart.
  const path = { key: patientKey };
  assert.ok(must(await clinical.GET('/core/api/v1/patients/{key}/conditions/', { params: { path, query: { limit: 10 } } }), 200).count >= 0);
  assert.ok(must(await clinical.GET('/core/api/v1/patients/{key}/medications/', { params: { path } }), 200).count >= 0);
  assert.ok(must(await clinical.GET('/core/api/v1/patients/{key}/goals/', { params: { path } }), 200).count >= 0);
  assert.equal(must(await clinical.GET('/core/api/v1/patients/{key}/banner-alerts/', { params: { path } }), 200).count, 0);
  assert.equal(must(await clinical.GET('/core/api/v1/patients/{key}/metadata/', { params: { path, query: { limit: 10 } } }), 200).count, 0);
  const unknownPatient = await clinical.GET('/core/api/v1/patients/{key}/metadata/', { params: { path: { key: '0'.repeat(32) } } });
  assert.equal(unknownPatient.error?.code, 'patient_not_found');

  // A note locked, unlocked and deleted.
  const other = must(await clinical.POST('/core/api/v1/notes/', { body: { patientKey, noteType: 'review' } }), 201);
  const otherPath = { uuid: other.uuid };
  assert.equal(must(await clinical.POST('/core/api/v1/notes/{uuid}/lock/', { params: { path: otherPath } }), 200).locked, true);
  assert.equal(must(await clinical.POST('/core/api/v1/notes/{uuid}/unlock/', { params: { path: otherPath } }), 200).locked, false);
  status(await clinical.DELETE('/core/api/v1/notes/{uuid}/', { params: { path: otherPath } }), 200);

  // Plugins, with the API key: extract, install, list, read, update (multipart, then form), secrets, package, dead letters, delete.
  const name = { name: pluginName };
  const metadata = must(await tool.POST('/core/api/v1/plugins/extract-metadata/', { body: { package: pluginPackage }, bodySerializer: multipart }), 200);
  assert.equal(metadata.name, pluginName);
  const installed = must(
    await tool.POST('/core/api/v1/plugins/', {
      body: { package: pluginPackage, is_enabled: 'True', secret: [btoa('TOKEN=first')] },
      bodySerializer: multipart,
    }),
    201,
  );
  assert.equal(installed.package_checksum, metadata.package_checksum);
  assert.ok(must(await tool.GET('/core/api/v1/plugins/', { params: { query: { limit: 10 } } }), 200).count >= 1);
  assert.equal(must(await clinical.GET('/core/api/v1/plugins/{name}/', { params: { path: name } }), 200).name, pluginName);
  const updated = must(
    await tool.PATCH('/core/api/v1/plugins/{name}/', {
      params: { path: name },
      body: { package: pluginPackage, is_enabled: 'true' },
      bodySerializer: multipart,
    }),
    200,
  );
  assert.equal(updated.is_enabled, true);
  const disabled = must(
    await tool.PATCH('/core/api/v1/plugins/{name}/', {
      params: { path: name },
      body: { is_enabled: 'false' },
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    200,
  );
  assert.equal(disabled.is_enabled, false);
  const secrets = must(await tool.GET('/core/api/v1/plugins/{name}/secrets/', { params: { path: name } }), 200);
  assert.ok(secrets.results.some((s) => s.name === 'TOKEN'));
  must(await tool.PATCH('/core/api/v1/plugins/{name}/secrets/', { params: { path: name }, body: { TOKEN: 'second' } }), 200);
  const archive = await tool.GET('/core/api/v1/plugins/{name}/package/', { params: { path: name }, parseAs: 'blob' });
  assert.equal(must(archive, 200).size, pluginPackage.size);
  assert.equal(archive.response.headers.get('x-checksum-sha256'), installed.package_checksum);
  assert.equal(must(await tool.GET('/core/api/v1/plugins/{name}/dead-letters/', { params: { path: name, query: { limit: 5 } } }), 200).count, 0);
  assert.equal(must(await tool.GET('/core/api/v1/plugins/{name}/reads/', { params: { path: name, query: { limit: 5 } } }), 200).count, 0);
  const letter = { ...name, id: '1' };
  assert.equal((await tool.POST('/core/api/v1/plugins/{name}/dead-letters/{id}/replay/', { params: { path: letter } })).error?.status, 404);
  assert.equal((await tool.DELETE('/core/api/v1/plugins/{name}/dead-letters/{id}/', { params: { path: letter } })).error?.status, 404);
  status(await tool.DELETE('/core/api/v1/plugins/{name}/', { params: { path: name, query: { force: 'true' } } }), 204);

  // The reference data catalogues (admin, API key).
  const admin = '/core/api/v1/admin';
  // Credentials (docs/api.md, "Credentials"): created, listed without the secret, revoked.
  const key = must(await tool.POST(`${admin}/api-keys/`, { body: { label: 'session', expires_at: '2099-01-01T00:00:00Z' } }), 201);
  assert.ok(key.api_key.length > 0);
  const keys = must(await tool.GET(`${admin}/api-keys/`), 200);
  assert.ok(keys.results.some((k) => k.id === key.id));
  assert.ok(!JSON.stringify(keys).includes(key.api_key));
  assert.notEqual(must(await tool.POST(`${admin}/api-keys/{id}/revoke/`, { params: { path: { id: key.id } } }), 200).revoked_at, null);
  const client = must(await tool.POST(`${admin}/oauth-clients/`, { body: { label: 'session' } }), 201);
  assert.ok(must(await tool.GET(`${admin}/oauth-clients/`), 200).results.some((c) => c.client_id === client.client_id));
  must(await tool.POST(`${admin}/oauth-clients/{client_id}/revoke/`, { params: { path: { client_id: client.client_id } } }), 200);
  must(await tool.POST(`${admin}/staff/`, { body: { first_name: 'Grace', last_name: 'Hopper', role: 'provider' } }), 201);
  assert.ok(must(await tool.GET(`${admin}/staff/`, { params: { query: { limit: 5 } } }), 200).count >= 1);
  const partner = must(await tool.POST(`${admin}/lab-partners/`, { body: { name: 'Acme Labs' } }), 201);
  must(await tool.GET(`${admin}/lab-partners/`), 200);
  const partnerPath = { id: String(partner.id) };
  must(await tool.POST(`${admin}/lab-partners/{id}/tests/`, { params: { path: partnerPath }, body: { order_code: 'CBC', name: 'Blood count' } }), 201);
  must(await tool.GET(`${admin}/lab-partners/{id}/tests/`, { params: { path: partnerPath } }), 200);
  must(
    await tool.POST(`${admin}/pharmacies/`, { body: { ncpdp_id: '1234567', name: 'Corner', address: '1 Main St', city: 'Town', state: 'CA', zip: '94000' } }),
    201,
  );
  must(await tool.GET(`${admin}/pharmacies/`), 200);
  must(await tool.POST(`${admin}/reason-for-visit-codings/`, { body: { code: 'RFV-1', display: 'Cough' } }), 201);
  must(await tool.GET(`${admin}/reason-for-visit-codings/`), 200);
  must(
    await tool.POST(`${admin}/questionnaires/`, {
      body: { code: 'Q1', name: 'Intake', questions: [{ code: 'CIG', label: 'Cigarettes per day', kind: 'INT' }] },
    }),
    201,
  );
  must(await tool.GET(`${admin}/questionnaires/`), 200);
  must(await tool.POST(`${admin}/educational-materials/`, { body: { title: 'Asthma basics', languages: ['en-us'] } }), 201);
  must(await tool.GET(`${admin}/educational-materials/`), 200);
  must(await tool.POST(`${admin}/dispense-units/`, { body: { ncpdp_quantity_qualifier_code: 'C99999999', description: 'Test unit' } }), 201);
  must(await tool.GET(`${admin}/dispense-units/`), 200);

  // The logs: the recent entries, and the stream asked for without an upgrade.
  assert.ok(Array.isArray(must(await tool.GET('/core/api/v1/logging/recent/', { params: { query: { level: 'info', limit: 10 } } }), 200).results));
  assert.equal((await tool.GET('/core/api/v1/logging/')).error?.status, 426);
}
