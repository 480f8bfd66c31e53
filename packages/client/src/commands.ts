// The nine Commands API endpoints. Calls that answer with a command resolve to a
// CommandResult `{ command, etag, replayed }` (see index.ts).
import type { AutocompleteOption, Paginated, Command, Fields } from '@charta/api';
import { paths } from './paths.ts';
import type { Answer, QueryValue, Transport } from './transport.ts';

export interface CommandResult {
  command: Command;
  /** The ETag header, to pass back as `ifMatch`; null only if the instance sent none. */
  etag: string | null;
  /** True when the instance replayed an earlier answer for the same Idempotency-Key. */
  replayed: boolean;
}

export interface CreateCommandInput {
  schemaKey: string;
  noteKey: string;
  values?: Record<string, unknown>;
}

export interface IfMatchOptions {
  /** ETag from an earlier CommandResult: the instance answers 412 if the command changed since. */
  ifMatch?: string | null;
}

export interface IdempotencyOptions {
  /** A repeat with the same key and body replays the first answer; another body → 422. */
  idempotencyKey?: string;
}

/** A date (`2026-11-22`, the whole UTC day), an ISO 8601 timestamp, or a Date. */
export type DateFilter = string | Date;

export type CommandOrdering = 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

export interface CommandFilters {
  patientKey?: string;
  noteKey?: string;
  originatorKey?: string;
  committerKey?: string;
  schemaKey?: string;
  state?: Command['state'];
  createdAt?: DateFilter;
  createdAtLt?: DateFilter;
  createdAtLte?: DateFilter;
  createdAtGt?: DateFilter;
  createdAtGte?: DateFilter;
  updatedAt?: DateFilter;
  updatedAtLt?: DateFilter;
  updatedAtLte?: DateFilter;
  updatedAtGt?: DateFilter;
  updatedAtGte?: DateFilter;
}

export interface CommandListOptions extends CommandFilters {
  /** 1–1000; the instance's default is 20. */
  limit?: number;
  offset?: number;
  /** Default `created_at` (then uuid), ascending. */
  ordering?: CommandOrdering;
}

/** Client option name → query parameter of GET /core/api/v1/commands. */
export const COMMAND_QUERY_PARAMETERS = {
  patientKey: 'patient_key',
  noteKey: 'note_key',
  originatorKey: 'originator_key',
  committerKey: 'committer_key',
  schemaKey: 'schema_key',
  state: 'state',
  createdAt: 'created_at',
  createdAtLt: 'created_at__lt',
  createdAtLte: 'created_at__lte',
  createdAtGt: 'created_at__gt',
  createdAtGte: 'created_at__gte',
  updatedAt: 'updated_at',
  updatedAtLt: 'updated_at__lt',
  updatedAtLte: 'updated_at__lte',
  updatedAtGt: 'updated_at__gt',
  updatedAtGte: 'updated_at__gte',
  limit: 'limit',
  offset: 'offset',
  ordering: 'ordering',
} as const satisfies Record<keyof CommandListOptions, string>;

const result = (answer: Answer<Command>): CommandResult => ({
  command: answer.data,
  etag: answer.headers.get('etag'),
  replayed: answer.headers.get('idempotent-replayed') === 'true',
});

const writeHeaders = (options: IfMatchOptions & IdempotencyOptions) => ({
  'if-match': options.ifMatch,
  'idempotency-key': options.idempotencyKey,
});

export class CommandsApi {
  constructor(private readonly transport: Transport) {}

  /** POST /core/api/v1/commands/ → 201, a staged command. */
  async create(input: CreateCommandInput, options: IdempotencyOptions = {}): Promise<CommandResult> {
    const json = { schemaKey: input.schemaKey, noteKey: input.noteKey, values: input.values ?? {} };
    return result(await this.transport.send<Command>('POST', paths.commands(), { json, headers: writeHeaders(options) }));
  }

  async get(uuid: string): Promise<CommandResult> {
    return result(await this.transport.send<Command>('GET', paths.command(uuid)));
  }

  async list(options: CommandListOptions = {}): Promise<Paginated<Command>> {
    const query: Record<string, QueryValue> = {};
    for (const [name, parameter] of Object.entries(COMMAND_QUERY_PARAMETERS)) query[parameter] = options[name as keyof CommandListOptions];
    return (await this.transport.send<Paginated<Command>>('GET', paths.commands(), { query })).data;
  }

  /** PATCH: replaces the named fields' values; `null` clears a field. */
  async update(uuid: string, values: Record<string, unknown>, options: IfMatchOptions = {}): Promise<CommandResult> {
    return result(await this.transport.send<Command>('PATCH', paths.command(uuid), { json: { values }, headers: writeHeaders(options) }));
  }

  /** DELETE a staged command (200, empty body). */
  async delete(uuid: string, options: IfMatchOptions = {}): Promise<void> {
    await this.transport.send<unknown>('DELETE', paths.command(uuid), { headers: writeHeaders(options) });
  }

  async commit(uuid: string, options: IfMatchOptions & IdempotencyOptions = {}): Promise<CommandResult> {
    return result(await this.transport.send<Command>('POST', paths.commandCommit(uuid), { headers: writeHeaders(options) }));
  }

  async enterInError(uuid: string, options: IfMatchOptions & IdempotencyOptions = {}): Promise<CommandResult> {
    return result(await this.transport.send<Command>('POST', paths.commandEnterInError(uuid), { headers: writeHeaders(options) }));
  }

  async fields(uuid: string): Promise<Fields> {
    return (await this.transport.send<Fields>('GET', paths.commandFields(uuid))).data;
  }

  /** Options of an AutocompleteField; each `value` is a JSON string PATCH accepts as is. */
  async autocomplete(uuid: string, field: string, searchTerm: string, options: { limit?: number } = {}): Promise<AutocompleteOption[]> {
    const query = { search_term: searchTerm, limit: options.limit };
    return (await this.transport.send<AutocompleteOption[]>('GET', paths.commandAutocomplete(uuid, field), { query })).data;
  }
}
