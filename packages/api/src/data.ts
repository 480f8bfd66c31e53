// What a plugin's handler reads through `this.data` (docs/plugins.md, "Reading the record"): the
// same views as the REST API's, a list as one page with the next page's offset, and the typed
// error a refused read throws inside the sandbox.
import type { Static } from '@sinclair/typebox';
import type { DataErrorCode, ReferenceCatalogue } from './constants.ts';
import type { Command, ListCommandsQuery } from './commands.ts';
import type { ListNotesQuery, Note } from './notes.ts';
import type { Patient, PatientMetadata } from './patients.ts';
import type { BannerAlert } from './chart.ts';

/** One page of a list read: the API's count, and the offset of the next page (null on the last). */
export interface DataPage<T> {
  count: number;
  count_is_estimate: boolean;
  next_offset: number | null;
  results: T[];
}

/** A chart entry as `GET /core/api/v1/patients/{key}/conditions/` (medications/, goals/) shows it. */
export interface ChartEntry {
  id: number;
  patient_key: string;
  status: string;
  source_command: string | null;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

/** `this.data.chart.get(key)`: the active conditions, medications and goals, and the banner alerts. */
export interface PatientChart {
  patient_key: string;
  conditions: ChartEntry[];
  medications: ChartEntry[];
  goals: ChartEntry[];
  banner_alerts: BannerAlert[];
}

export type CommandsQuery = Static<typeof ListCommandsQuery>;
export type NotesQuery = Static<typeof ListNotesQuery>;

/** `this.data`: every read is async, answered by the instance within the call's scope and budget. */
export interface DataReader {
  patients: {
    get(key: string): Promise<Patient>;
    /** The patient's metadata pairs (every plugin's namespace), sorted by namespace then key. */
    metadata(key: string, page?: { limit?: number; offset?: number }): Promise<DataPage<PatientMetadata>>;
  };
  notes: { get(uuid: string): Promise<Note>; list(query?: NotesQuery): Promise<DataPage<Note>> };
  commands: { get(uuid: string): Promise<Command>; list(query?: CommandsQuery): Promise<DataPage<Command>> };
  chart: { get(patientKey: string): Promise<PatientChart> };
  /** Coded concepts, as autocomplete finds them (active concepts of the instance's terminologies). */
  terminology: {
    lookup(system: string, code: string): Promise<TerminologyConcept>;
    search(systems: string[], term: string, options?: { limit?: number }): Promise<TerminologyConcept[]>;
  };
  /** The reference data: each catalogue's entries as the admin API lists them (docs/plugins.md, "Reading the record"). */
  reference: Record<
    ReferenceCatalogue,
    {
      list(query?: { parent?: string; limit?: number; offset?: number }): Promise<DataPage<Record<string, unknown>>>;
      get(id: string): Promise<Record<string, unknown>>;
    }
  >;
}

/** A coded concept of a terminology (ICD-10-CM, RxNorm, LOINC…): its system string, code and display. */
export interface TerminologyConcept {
  system: string;
  code: string;
  display: string;
  extra: Record<string, unknown> | null;
}

/** What a refused read throws: `code` says why, `errors` names the arguments at fault (invalid). */
export interface DataErrorShape extends Error {
  name: 'DataError';
  code: DataErrorCode;
  errors?: Array<{ field: string; message: string }>;
}

/**
 * `this.cache`: JSON values by key, kept by the instance for the plugin (every process sees the
 * same), gone when the plugin is deleted. `ttl` in seconds (at most 30 days); none: kept until
 * deleted or replaced.
 */
export interface PluginCache {
  get<T = unknown>(key: string): Promise<T | null>;
  set(key: string, value: unknown, options?: { ttl?: number }): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/**
 * The record a plugin's tests read through `this.data` instead of an instance's
 * (docs/plugins.md, "Testing a plugin"; `runInSandbox(…, {data})` of `@charta/plugin-sdk/testing`,
 * `charta plugin run --fixture`): rows in the API's shapes (a row may leave out what its test
 * does not read), and each patient's chart and metadata pairs by the patient's key.
 */
export interface DataFixture {
  patients?: Array<Partial<Patient> & { key: string }>;
  notes?: Array<Partial<Note> & { uuid: string; patient_key: string }>;
  commands?: Array<Partial<Command> & { uuid: string; patient_key: string }>;
  /** By patient key: what `chart.get` answers (its entries' `status` as the chart reads filter it: active conditions and medications, open goals). */
  chart?: Record<string, Partial<Omit<PatientChart, 'patient_key'>>>;
  /** By patient key: the pairs `patients.metadata` answers. */
  metadata?: Record<string, PatientMetadata[]>;
  /** The concepts `terminology.lookup` and `.search` find. */
  terminology?: TerminologyConcept[];
  /** By catalogue: its entries, as the admin API shows them (each with its key field: REFERENCE_CATALOGUES). */
  reference?: Partial<Record<ReferenceCatalogue, Array<Record<string, unknown>>>>;
}
