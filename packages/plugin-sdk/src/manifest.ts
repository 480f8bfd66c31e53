// CHARTA_MANIFEST.json: its JSON Schema (the one place it is defined; docs/plugin-manifest.md
// describes it for plugin developers), its TypeScript shape and its validation with ajv.
// Modelled on the original tool's CANVAS_MANIFEST.json v2, for plugins written in TypeScript.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { DATA_RESOURCES, DATA_SCOPES, type DataResource, type DataScope } from '@charta/api/constants';

/** The manifest's file name, at a package's top level or one directory down. */
export const MANIFEST_FILE_NAME = 'CHARTA_MANIFEST.json';

/** The largest manifest an instance reads (and the build accepts). */
export const MANIFEST_MAX_BYTES = 64 * 1024;

export const MANIFEST_SCHEMA_ID = 'https://charta.dev/schemas/plugin-manifest.json';

/**
 * The string formats with a pattern. Their `description` says in words what the pattern means;
 * an error report shows it ("must be …") instead of the regular expression.
 */
export const MANIFEST_FORMATS = {
  name: {
    pattern: '^[A-Za-z0-9][A-Za-z0-9 _-]*$',
    description: "a name of letters, digits, spaces, '-' and '_' that starts with a letter or digit",
  },
  version: {
    pattern: '^[0-9]+(\\.[0-9]+){0,3}([-+.]?[0-9A-Za-z]+([.+-][0-9A-Za-z]+)*)?$',
    description: 'a version such as 1.0.0, 1.2.3-beta.1 or 2.0rc1',
  },
  entry: {
    pattern: '^(\\./)?[A-Za-z0-9_@+-][A-Za-z0-9_@.+-]*(/[A-Za-z0-9_@+-][A-Za-z0-9_@.+-]*)*\\.(js|mjs|cjs)$',
    description: "a relative path inside the package to a .js, .mjs or .cjs file, with '/' separators and no '..' or hidden segments",
  },
  class: {
    pattern: '^([A-Za-z0-9_@+-][A-Za-z0-9_@.+-]*(/[A-Za-z0-9_@+-][A-Za-z0-9_@.+-]*)*:)?[A-Za-z_$][A-Za-z0-9_$]*$',
    description: 'an exported name such as VitalsHandler, optionally preceded by its module and a colon (handlers/vitals.js:VitalsHandler)',
  },
  event: {
    pattern: '^[A-Z][A-Z0-9_]*$',
    description: 'an event name in upper case such as PLAN_COMMAND__POST_COMMIT',
  },
  secret: {
    pattern: '^[A-Z][A-Z0-9_]*$',
    description: 'a secret name in upper case such as API_TOKEN',
  },
} as const;

const stringList = (item: object, maxItems: number) => ({ type: 'array', items: item, maxItems, uniqueItems: true });

const handlerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['events', 'description'],
  anyOf: [{ required: ['entry'] }, { required: ['class'] }],
  properties: {
    entry: { type: 'string', maxLength: 256, ...MANIFEST_FORMATS.entry },
    class: { type: 'string', minLength: 1, maxLength: 256, ...MANIFEST_FORMATS.class },
    events: {
      type: 'array',
      minItems: 1,
      maxItems: 200,
      uniqueItems: true,
      items: { type: 'string', maxLength: 128, ...MANIFEST_FORMATS.event },
    },
    description: { type: 'string', maxLength: 500 },
    on_failure: {
      type: 'string',
      enum: ['allow', 'refuse'],
      description:
        "What a PRE event's change does when this handler crashes, times out or cannot be loaded: goes ahead (allow, the default) or is refused (refuse)",
    },
  },
} as const;

/** The JSON Schema (draft-07) of CHARTA_MANIFEST.json. */
export const manifestSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: MANIFEST_SCHEMA_ID,
  title: 'CHARTA_MANIFEST.json',
  description: 'Describes a Charta plugin: its name, version and the handlers it registers.',
  type: 'object',
  additionalProperties: false,
  required: ['sdk_version', 'plugin_version', 'name', 'description', 'components'],
  properties: {
    $schema: { type: 'string', maxLength: 2048 },
    sdk_version: { type: 'string', minLength: 1, maxLength: 64 },
    plugin_version: { type: 'string', maxLength: 64, ...MANIFEST_FORMATS.version },
    name: { type: 'string', minLength: 1, maxLength: 64, ...MANIFEST_FORMATS.name },
    description: { type: 'string', maxLength: 500 },
    components: {
      type: 'object',
      additionalProperties: false,
      required: ['handlers'],
      properties: {
        handlers: { type: 'array', minItems: 1, maxItems: 100, items: handlerSchema },
      },
    },
    tags: stringList({ type: 'string', minLength: 1, maxLength: 64 }, 32),
    references: stringList({ type: 'string', minLength: 1, maxLength: 2048 }, 50),
    license: { type: 'string', maxLength: 256 },
    readme: { type: ['string', 'boolean'] },
    secrets: stringList({ type: 'string', maxLength: 128, ...MANIFEST_FORMATS.secret }, 100),
    data: {
      type: 'object',
      additionalProperties: false,
      description: 'What the handlers read of the record through this.data (docs/plugins.md, "Reading the record").',
      properties: {
        read: { type: 'array', uniqueItems: true, maxItems: DATA_RESOURCES.length, items: { type: 'string', enum: [...DATA_RESOURCES] } },
        scope: {
          type: 'string',
          enum: [...DATA_SCOPES],
          description: "event_patient (the default): only the event's patient; instance: any patient, once an administrator grants data:instance",
        },
        reads_per_call: {
          type: 'integer',
          minimum: 1,
          maximum: 10000,
          description: 'The most reads one handler call may make (default 50; the instance may cap it).',
        },
        rows_per_call: {
          type: 'integer',
          minimum: 1,
          maximum: 1000000,
          description: 'The most rows one handler call may read in all (default 2000; the instance may cap it).',
        },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: "The plugin's runtime limits; an instance refuses values over its own maximums.",
      properties: {
        memory_mb: { type: 'integer', minimum: 1, maximum: 1024, description: "Heap of the plugin's runtime, in MiB (default 32)." },
        timeout_ms: { type: 'integer', minimum: 10, maximum: 60000, description: 'Deadline of one handler call, in milliseconds (default 1000).' },
        effects_per_answer: {
          type: 'integer',
          minimum: 1,
          maximum: 100000,
          description: 'The most effects one answer of a handler may hold; the rest are refused (default 100).',
        },
      },
    },
  },
} as const;

export interface ManifestHandler {
  /** The bundled JS file of the handler, relative to the manifest's directory. */
  entry?: string;
  /** The handler's exported name in `entry`, or `module:Name` as the original tool wrote it. */
  class?: string;
  /** Event names such as PLAN_COMMAND__POST_COMMIT. */
  events: string[];
  description: string;
  /** A PRE handler's failure lets the change go ahead (`allow`, the default) or refuses it (`refuse`). */
  on_failure?: 'allow' | 'refuse';
}

export interface ChartaManifest {
  $schema?: string;
  sdk_version: string;
  plugin_version: string;
  name: string;
  description: string;
  components: { handlers: ManifestHandler[] };
  tags?: string[];
  references?: string[];
  license?: string;
  readme?: string | boolean;
  secrets?: string[];
  limits?: { memory_mb?: number; timeout_ms?: number; effects_per_answer?: number };
  /** What the handlers read through this.data (docs/plugins.md, "Reading the record"). */
  data?: { read?: DataResource[]; scope?: DataScope; reads_per_call?: number; rows_per_call?: number };
}

/** Compiled on first use: compiling costs every process that imports the SDK (each `charta` run) tenths of a second. */
let compiled: ValidateFunction | undefined;
const validator = (): ValidateFunction =>
  (compiled ??= new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true }).compile(manifestSchema));

/** One ajv error as a sentence: "/components/handlers/0 must have required property 'events'". */
function describe(error: ErrorObject): string {
  const where = error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? 'is invalid';
  const described = (error.parentSchema as { description?: unknown } | undefined)?.description;
  if (error.keyword === 'pattern' && typeof described === 'string') message = `must be ${described}`;
  else if (error.keyword === 'additionalProperties') message = `must NOT have the property '${String(params['additionalProperty'])}'`;
  else if (error.keyword === 'anyOf' && /\/handlers\/items\/anyOf$/.test(error.schemaPath)) message = "must have an 'entry' or a 'class'";
  return `${where} ${message}`;
}

export type ManifestResult = { ok: true; manifest: ChartaManifest } | { ok: false; reasons: string[] };

/** Parses and validates the bytes of a CHARTA_MANIFEST.json; reasons are prefixed with the file name. */
export function parseManifest(bytes: Buffer, label = MANIFEST_FILE_NAME): ManifestResult {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reasons: [`${label}: not valid JSON (${err instanceof Error ? err.message : String(err)})`] };
  }
  return validateManifest(value, label);
}

/** Validates an already parsed manifest against manifestSchema. */
export function validateManifest(value: unknown, label = MANIFEST_FILE_NAME): ManifestResult {
  const validate = validator();
  if (validate(value)) return { ok: true, manifest: value as ChartaManifest };
  const errors = validate.errors ?? [];
  // "must match a schema in anyOf" repeats the two required-property errors before it.
  const shown = errors.filter(
    (e, _, all) =>
      !(
        e.keyword === 'required' &&
        /\/anyOf\/\d+\/required$/.test(e.schemaPath) &&
        all.some((o) => o.keyword === 'anyOf' && o.instancePath === e.instancePath)
      ),
  );
  const reasons = [...new Set(shown.map((e) => `${label}: ${describe(e)}`))];
  return { ok: false, reasons: reasons.length ? reasons : [`${label}: is invalid`] };
}
