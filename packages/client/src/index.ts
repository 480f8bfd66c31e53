// @charta/client: a typed client for a Charta instance, the one every caller uses (the CLI, the
// console): the Commands API, patients (search, the chart, banner alerts, metadata), notes, plugins
// (install by multipart, update, enable, disable, delete, download, secrets, dead letters,
// extract-metadata), the admin reference catalogues, the recent log entries and the log stream.
//
//   const charta = await ChartaClient.withClientCredentials(url, clientId, clientSecret);
//   const patient = await charta.patients.create({ firstName: 'Ada', lastName: 'Lovelace' });
//   const note = await charta.notes.create({ patientKey: patient.key, noteType: 'encounter' });
//   const { command, etag } = await charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid });
//   await charta.commands.update(command.uuid, { narrative: 'Rest' }, { ifMatch: etag });
//
// Result shape: every call that answers with a command (create, get, update, commit,
// enterInError) resolves to a CommandResult `{ command, etag, replayed }`: `etag` is the
// ETag header to pass back as `{ ifMatch: etag }`, `replayed` is true when the instance
// replayed an earlier answer for the same Idempotency-Key. Everything else resolves to the
// resource itself (Patient, Note, Plugin, Fields, AutocompleteOption[], Paginated<…> for every
// list, PluginSecretListing, LogEntry[], a PluginDownload of bytes); deletes resolve to undefined.
// logs.stream() follows the log stream until closed: `{ onEntry, onStatus, webSocket }`, where
// `webSocket` makes the socket (default: the global WebSocket; in Node 20, `ws`).
//
// Failures: a non-2xx answer throws ChartaApiError (status, problem body, `<status> <code>:
// <detail>`, the raw `body`); no usable answer throws ChartaNetworkError (the cause attached).
// `onAnswer` sees every answer as it came (status, headers, text) before that.
//
// Credentials: `token` (sent as Bearer), `apiKey` (sent as the raw Authorization value, as
// the plugin tool does; the instance accepts API keys on the plugin, log and admin endpoints,
// and answers 403 on commands, notes and patients), or client credentials via
// withClientCredentials, which fetches a token, keeps it, fetches a new one within 60 s of its
// expiry and once after a 401. A `baseUrl` of '' calls the page's own origin (a browser).
import type { Token } from '@charta/api';
import { AdminApi } from './admin.ts';
import { CommandsApi } from './commands.ts';
import { LogsApi } from './logs.ts';
import { ChangesApi } from './changes.ts';
import { paths } from './paths.ts';
import { AuditApi, NotesApi, PatientsApi, StaffApi } from './resources.ts';
import { PluginsApi } from './plugins.ts';
import { ClientCredentials, Transport, staticCredentials, type AnswerSeen, type Credentials, type FetchLike } from './transport.ts';

export type {
  AutocompleteOption,
  BannerAlert,
  Command,
  Fields,
  Note,
  Paginated,
  Patient,
  PatientMetadata,
  Plugin,
  DeadLetter as PluginDeadLetter,
  LogEntry,
  LogLevel,
  SecretChange as PluginSecretChange,
  SecretListing as PluginSecretListing,
  Token,
} from '@charta/api';
export { ChartaApiError, ChartaError, ChartaNetworkError, type ProblemDetails } from './errors.ts';
export {
  COMMAND_QUERY_PARAMETERS,
  type CommandFilters,
  type CommandListOptions,
  type CommandOrdering,
  type CommandResult,
  type CreateCommandInput,
  type DateFilter,
  type IdempotencyOptions,
  type IfMatchOptions,
} from './commands.ts';
export type { ChartEntry, ChartListOptions, CreateNoteInput, CreatePatientInput, NoteListOptions, PageOptions, PatientSearchOptions } from './resources.ts';
export { PluginsApi, base64Utf8, pythonBool, type PluginChange, type PluginDownload, type PluginMetadata, type PluginPackage } from './plugins.ts';
export { AdminApi, type ReferenceEntry } from './admin.ts';
export {
  LogsApi,
  REFUSED_CLOSE_CODES,
  type LogFilter,
  type LogStream,
  type LogStreamOptions,
  type RecentLogOptions,
  type StreamStatus,
  type WebSocketFactory,
  type WebSocketLike,
} from './logs.ts';
export { ChangesApi, type FollowChangesOptions, type RecordChange } from './changes.ts';
export { TOKEN_REFRESH_MARGIN_SECONDS, type AnswerSeen, type FetchLike } from './transport.ts';
export { paths, type AdminCatalogue, type ChartList } from './paths.ts';

export interface ChartaClientOptions {
  /** Instance URL, e.g. http://localhost:8000 (a trailing slash is ignored). */
  baseUrl: string;
  /** OAuth access token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** API key, sent as `Authorization: <key>` (plugin endpoints only; clinical ones answer 403). */
  apiKey?: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Added to every fetch: e.g. `{ redirect: 'manual' }` so a key never follows a redirect. */
  requestInit?: RequestInit;
  /** Told of every answer (status, headers, body text) before it is decoded or thrown. */
  onAnswer?: (answer: AnswerSeen) => void;
}

export interface ClientCredentialsOptions {
  fetch?: FetchLike;
  /** Clock in ms (tests). */
  now?: () => number;
}

export class ChartaClient {
  readonly baseUrl: string;
  readonly commands: CommandsApi;
  readonly patients: PatientsApi;
  readonly notes: NotesApi;
  /** Staff members by key: who wrote or committed a command (a token). */
  readonly staff: StaffApi;
  /** The audit trail (an API key with the admin scope). */
  readonly audit: AuditApi;
  /** Plugins (an API key client: `new ChartaClient({ baseUrl, apiKey })`, or a token with system/Plugins.*). */
  readonly plugins: PluginsApi;
  /** The admin reference catalogues (an API key). */
  readonly admin: AdminApi;
  /** The recent entries and the live stream. */
  readonly logs: LogsApi;
  /** The change stream of a patient's or a note's commands and notes (a token). */
  readonly changes: ChangesApi;
  private readonly transport: Transport;

  constructor(options: ChartaClientOptions);
  /** @internal */
  constructor(options: ChartaClientOptions, credentials: Credentials);
  constructor(options: ChartaClientOptions, credentials?: Credentials) {
    if (options.token !== undefined && options.apiKey !== undefined) throw new TypeError('Pass either token or apiKey, not both');
    const header = options.token !== undefined ? `Bearer ${options.token}` : options.apiKey;
    const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.transport = new Transport(options.baseUrl, fetchImpl, credentials ?? staticCredentials(header), options.requestInit, options.onAnswer);
    this.baseUrl = this.transport.baseUrl;
    this.commands = new CommandsApi(this.transport);
    this.patients = new PatientsApi(this.transport);
    this.notes = new NotesApi(this.transport);
    this.staff = new StaffApi(this.transport);
    this.audit = new AuditApi(this.transport);
    this.plugins = new PluginsApi(this.transport);
    this.admin = new AdminApi(this.transport);
    this.logs = new LogsApi(this.transport);
    this.changes = new ChangesApi(this.transport);
  }

  /** POST /auth/token/ (client credentials, form-encoded, no Authorization): a token and its scope. */
  async requestToken(clientId: string, clientSecret: string): Promise<Token> {
    const form = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    return (await this.transport.send<Token>('POST', paths.token(), { authenticate: false, form })).data;
  }

  /**
   * A client authenticated by the OAuth 2.0 client credentials grant (POST /auth/token/,
   * form-encoded). The first token is fetched before this resolves, so wrong credentials
   * fail here with ChartaApiError 401 invalid_client.
   */
  static async withClientCredentials(baseUrl: string, clientId: string, clientSecret: string, options: ClientCredentialsOptions = {}): Promise<ChartaClient> {
    const credentials = new ClientCredentials(clientId, clientSecret, options.now);
    const client = new ChartaClient({ baseUrl, fetch: options.fetch }, credentials);
    await credentials.header(client.transport);
    return client;
  }
}
