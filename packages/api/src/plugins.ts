// Schemas of the plugin API (docs/plugins.md).
import { Type, type Static } from '@sinclair/typebox';
import { PageOf, PageParams, Timestamp } from './common.ts';
import { CHANGE_TARGETS, DATA_RESOURCES, DATA_SCOPES, GRANT_NAMES, PLUGIN_RUNTIME_STATES, ROUTE_AUTHS, ROUTE_METHODS } from './constants.ts';

/** A package archive's bytes (the download's body: sent as they are, the serializer never sees them). */
export const PackageArchive = Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' });

export const PluginParams = Type.Object({ name: Type.String({ description: 'Plugin name (slug)' }) });

const FaultCounts = Type.Object({
  failures: Type.Integer({ description: 'Failure lines (success: false) of the plugin' }),
  timeouts: Type.Integer({ description: 'Of which calls past their deadline' }),
});

export const PluginDataAccessSchema = Type.Object(
  {
    read: Type.Array(Type.Union(DATA_RESOURCES.map((r) => Type.Literal(r))), { description: 'The resources its manifest declares it reads' }),
    scope: Type.Union(
      DATA_SCOPES.map((s) => Type.Literal(s)),
      { description: "event_patient: only the event's patient; instance: any patient, while the plugin has the data:instance grant" },
    ),
    reads_per_call: Type.Union([Type.Integer(), Type.Null()], { description: "The manifest's reads per handler call; null: the instance's" }),
    rows_per_call: Type.Union([Type.Integer(), Type.Null()], { description: "The manifest's rows per handler call; null: the instance's" }),
  },
  { description: 'What the plugin reads of the record through this.data (docs/plugins.md, "Reading the record")' },
);
export type PluginDataAccess = Static<typeof PluginDataAccessSchema>;

export const PluginRouteSchema = Type.Object(
  {
    method: Type.Union(ROUTE_METHODS.map((m) => Type.Literal(m))),
    path: Type.String({ description: "The path pattern under the plugin's prefix (`/webhooks/lab-result`, `/patients/:key/summary`)" }),
    url: Type.String({ description: 'Where it is served: /plugin-io/api/<plugin><path>' }),
    handler: Type.String({ description: '`<entry>:<class>`' }),
    auth: Type.Union(
      ROUTE_AUTHS.map((a) => Type.Literal(a)),
      {
        description:
          "staff: an OAuth bearer token of the instance; api_key: an instance API key; secret: the handler checks the request against one of the plugin's secrets; public: anyone",
      },
    ),
    signature_header: Type.Union([Type.String(), Type.Null()], { description: 'secret routes: the request header the handler checks, given to the sandbox' }),
    summary: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'A route the plugin serves (docs/plugins.md, "HTTP routes")' },
);
export type PluginRoute = Static<typeof PluginRouteSchema>;

export const PluginScheduleSchema = Type.Object(
  {
    handler: Type.String({ description: '`<entry>:<class>`' }),
    schedule: Type.String({ description: 'Five-field cron expression, UTC' }),
    next_tick: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it runs next (null while the plugin is disabled)' }),
    last_tick: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The last tick run, by any process' }),
  },
  { description: 'A scheduled task of the plugin (docs/plugins.md, "Scheduled tasks")' },
);
export type PluginSchedule = Static<typeof PluginScheduleSchema>;

export const PluginSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    package: Type.String({ format: 'uri', description: 'Download URL of the package' }),
    package_checksum: Type.String({ description: 'sha256 hex of the package' }),
    version: Type.String(),
    is_enabled: Type.Boolean(),
    grants: Type.Array(Type.String(), {
      description: `What an administrator allowed the plugin past its default reach, sorted: any of ${GRANT_NAMES.join(', ')} (docs/plugins.md, "Grants")`,
    }),
    data: PluginDataAccessSchema,
    routes: Type.Array(PluginRouteSchema, { description: 'The HTTP routes it serves, each with its authentication' }),
    schedules: Type.Array(PluginScheduleSchema, { description: 'Its scheduled tasks' }),
    runnable: Type.Boolean({
      description:
        'false for a Python package of the original tool (metadata PKG-INFO or CANVAS_MANIFEST.json): accepted, listed and enabled, but nothing in it can ever run here (docs/plugins.md, "Python packages of the original tool")',
    }),
    runnable_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the plugin can never run; null when runnable' }),
    notice: Type.Optional(
      Type.String({ description: 'Install and update only: why the plugin was left disabled (a data.scope instance without the data:instance grant)' }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
    runtime: Type.Object(
      {
        state: Type.Union(
          PLUGIN_RUNTIME_STATES.map((s) => Type.Literal(s)),
          {
            description:
              'running: loaded, its handlers get their events; loading: not loaded yet; failing: its load failed and is tried again at retry_at (its handlers answer unavailable); cannot-run: nothing here can run until the plugin changes; stopped: disabled',
          },
        ),
        detail: Type.Union([Type.String(), Type.Null()], { description: 'failing or cannot-run: why' }),
        since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it entered this state' }),
        retry_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'failing: when its load is tried again' }),
        failed_loads: Type.Integer({ description: 'Loads that failed in a row' }),
      },
      { description: 'Where the plugin stands in the runtime of the process that answers (docs/plugins.md, "Faults")' },
    ),
    faults: Type.Object(
      {
        last_hour: FaultCounts,
        last_day: FaultCounts,
        last_error: Type.Union([
          Type.Object({
            timestamp: Type.String(),
            message: Type.String({ description: 'The failure line' }),
            fault: Type.Union([Type.String(), Type.Null()], { description: 'What failed: timeout, out-of-memory, threw, crashed, unavailable, effect, load…' }),
            handler: Type.Union([Type.String(), Type.Null()], {
              description: 'The handler that failed (`<entry>:<class>`); null when the line names none (a load)',
            }),
            event_type: Type.Union([Type.String(), Type.Null()], {
              description: 'The event it was given (`PLAN_COMMAND__POST_COMMIT`, `CRON`…); null when the line names none',
            }),
          }),
          Type.Null(),
        ]),
      },
      { description: 'The plugin\'s recent faults, kept apart from other plugins\' log lines (docs/plugins.md, "Faults")' },
    ),
  },
  { $id: 'Plugin' },
);

export type Plugin = Static<typeof PluginSchema>;

export const PluginPage = PageOf(Type.Ref('Plugin'));

export const DeletePluginQuery = Type.Object(
  {
    force: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('True'), Type.Literal('False')], {
        description: "true: delete an enabled plugin too (True/False as the original tool's `uninstall --force` sends them)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SecretListingSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        name: Type.String(),
        declared: Type.Boolean({ description: "Whether the manifest's `secrets` names it" }),
        is_set: Type.Boolean(),
        updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When its value was last set; null when it is not set' }),
      }),
    ),
  },
  { $id: 'SecretListing', description: 'Secret names, never values (docs/api.md, "Plugin secrets")' },
);

export const SecretChangeBody = Type.Record(Type.String({ maxLength: 128 }), Type.Union([Type.String(), Type.Null()]), {
  description: 'A secret name → its new value, or null to remove it',
});
export const DeadLetterParams = Type.Object({
  name: Type.String({ description: 'Plugin name (slug)' }),
  id: Type.String({ pattern: '^[1-9][0-9]{0,14}$', description: 'Dead letter id' }),
});

export const DeadLetterSchema = Type.Object(
  {
    id: Type.Integer(),
    plugin: Type.String(),
    handler: Type.String({ description: '`<entry>:<class>`' }),
    event_id: Type.String({ description: "The event's id: a replay keeps it, so no effect is applied twice" }),
    event_type: Type.String(),
    target: Type.Object(
      {
        type: Type.Union(CHANGE_TARGETS.map((t) => Type.Literal(t))),
        id: Type.String({ description: "A command's or note's UUID, a patient's key" }),
      },
      { description: 'What the event is about (its `target`)' },
    ),
    command: Type.Union([Type.String(), Type.Null()], {
      description: 'The UUID of the command the event is about; null for an event about a note or a patient',
    }),
    attempts: Type.Integer(),
    last_error: Type.String(),
    request_id: Type.Union([Type.String(), Type.Null()], { description: 'The request of the change that caused the event' }),
    created_at: Type.String({ format: 'date-time', description: 'When the event was written' }),
    failed_at: Type.String({ format: 'date-time', description: 'When its last attempt failed' }),
    event: Type.Record(Type.String(), Type.Unknown(), { description: 'The event as the handler was given it' }),
  },
  { $id: 'DeadLetter', description: 'A POST event whose handler still failed after its last attempt (docs/plugins.md, "Delivery and guarantees")' },
);

export const DeadLetterPage = PageOf(Type.Ref('DeadLetter'));

/** The reads of the record a plugin's handlers made (docs/plugins.md, "Reading the record"), from the audit trail. */
export const PluginReadSchema = Type.Object(
  {
    id: Type.Integer({ description: "The audit row's id" }),
    occurred_at: Type.String({ format: 'date-time' }),
    read: Type.String({ description: 'What was read: patients.get, commands.list…' }),
    patient_key: Type.Union([Type.String(), Type.Null()], { description: 'The patient it was about (null: not known, as for a refusal before the read)' }),
    keys: Type.Array(Type.String(), { description: 'The keys of the rows given (or the key asked for)' }),
    rows: Type.Integer({ description: 'How many rows it gave' }),
    refused: Type.Union([Type.String(), Type.Null()], { description: 'Why it was refused (out of scope), or null for a read answered' }),
    event_id: Type.Union([Type.String(), Type.Null()]),
    event_type: Type.String(),
    handler: Type.String({ description: '`<entry>:<class>`' }),
    request_id: Type.Union([Type.String(), Type.Null()], { description: 'The request of the change that caused the event' }),
  },
  { $id: 'PluginRead' },
);
export const PluginReadPage = PageOf(Type.Ref('PluginRead'));
export const PluginReadsQuery = Type.Object(
  { patient_key: Type.Optional(Type.String({ maxLength: 64, description: "Only the reads of this patient's record" })), ...PageParams },
  { additionalProperties: false },
);
export type PluginRead = Static<typeof PluginReadSchema>;

export type SecretListing = Static<typeof SecretListingSchema>;
export type DeadLetter = Static<typeof DeadLetterSchema>;
export type SecretChange = Static<typeof SecretChangeBody>;

/** What POST /plugins/extract-metadata/ answers: what the package would install, without storing it. */
export const PackageMetadataSchema = Type.Object(
  {
    name: Type.String({ description: "The plugin's name as a slug" }),
    version: Type.String(),
    description: Type.String(),
    format: Type.Union([Type.Literal('wheel'), Type.Literal('tar.gz')]),
    source: Type.Union([Type.Literal('manifest'), Type.Literal('pkg-info'), Type.Literal('canvas-manifest')], {
      description: 'The file the metadata was read from',
    }),
    root: Type.String({ description: "Directory of the archive the metadata file sits in ('' for the top level)" }),
    files: Type.Integer({ description: 'Regular files in the archive' }),
    inflatedBytes: Type.Integer({ description: 'Bytes inflated while reading the archive' }),
    package_checksum: Type.String({ description: 'sha256 hex of the package' }),
  },
  { $id: 'PackageMetadata' },
);
export type PackageMetadata = Static<typeof PackageMetadataSchema>;
