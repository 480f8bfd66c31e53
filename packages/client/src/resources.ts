// Patients and notes: what a note needs before commands can be written into it; and staff, who write them.
import type { AuditFilters, AuditPage, BannerAlert, CreateNote, CreatePatient, Note, Paginated, Patient, PatientMetadata, StaffMember } from '@charta/api';
import { paths, type ChartList } from './paths.ts';
import type { Transport } from './transport.ts';

export type CreatePatientInput = CreatePatient;
export type CreateNoteInput = CreateNote;

export interface PageOptions {
  limit?: number;
  offset?: number;
}

export interface PatientSearchOptions extends PageOptions {
  /** Words (at most 5) that must each appear in "first last", ignoring case. */
  name?: string;
}

/** A chart entry as listed (docs/api.md, "The patient's chart"): the fields common to every kind, and the kind's own. */
export interface ChartEntry {
  id: string;
  patient_key: string;
  source_command: string;
  status: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export interface ChartListOptions extends PageOptions {
  /** Only entries of this status (the kind's statuses, docs/api.md). */
  status?: string;
}

export interface NoteListOptions {
  patientKey?: string;
  limit?: number;
  offset?: number;
}

export class StaffApi {
  constructor(private readonly transport: Transport) {}

  /** GET /core/api/v1/staff/{key}: a staff member's name, credentials and role (a clinical token). */
  async get(key: string): Promise<StaffMember> {
    return (await this.transport.send<StaffMember>('GET', paths.staffMember(key))).data;
  }
}

export class AuditApi {
  constructor(private readonly transport: Transport) {}

  /** GET /core/api/v1/audit/: one page of the audit trail, newest first, filtered; `next` carries the cursor (an API key with the admin scope). */
  async list(filters: AuditFilters = {}): Promise<AuditPage> {
    return (await this.transport.send<AuditPage>('GET', paths.audit(), { query: { ...filters } })).data;
  }
}

export class PatientsApi {
  constructor(private readonly transport: Transport) {}

  /** POST /core/api/v1/patients/ {firstName, lastName, birthDate?} → 201. */
  async create(input: CreatePatientInput): Promise<Patient> {
    return (await this.transport.send<Patient>('POST', paths.patients(), { json: input })).data;
  }

  async get(key: string): Promise<Patient> {
    return (await this.transport.send<Patient>('GET', paths.patient(key))).data;
  }

  /** GET /core/api/v1/patients?name=…: every word anywhere in "first last"; without a name, every patient. */
  async search(options: PatientSearchOptions = {}): Promise<Paginated<Patient>> {
    const query = { name: options.name, limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<Patient>>('GET', paths.patients(), { query })).data;
  }

  /** GET /core/api/v1/patients/{key}/conditions/ (medications/, goals/): a chart list. */
  async chart(key: string, list: ChartList, options: ChartListOptions = {}): Promise<Paginated<ChartEntry>> {
    const query = { status: options.status, limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<ChartEntry>>('GET', paths.patientChart(key, list), { query })).data;
  }

  conditions(key: string, options: ChartListOptions = {}): Promise<Paginated<ChartEntry>> {
    return this.chart(key, 'conditions', options);
  }

  medications(key: string, options: ChartListOptions = {}): Promise<Paginated<ChartEntry>> {
    return this.chart(key, 'medications', options);
  }

  goals(key: string, options: ChartListOptions = {}): Promise<Paginated<ChartEntry>> {
    return this.chart(key, 'goals', options);
  }

  /** GET /core/api/v1/patients/{key}/banner-alerts/: the banner alerts plugins added, oldest first (a clinical token). */
  async bannerAlerts(key: string, options: PageOptions = {}): Promise<Paginated<BannerAlert>> {
    const query = { limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<BannerAlert>>('GET', paths.patientBannerAlerts(key), { query })).data;
  }

  /** GET /core/api/v1/patients/{key}/metadata/: the key/value pairs plugins keep on the patient, by namespace then key (a clinical token). */
  async metadata(key: string, options: PageOptions = {}): Promise<Paginated<PatientMetadata>> {
    const query = { limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<PatientMetadata>>('GET', paths.patientMetadata(key), { query })).data;
  }
}

export class NotesApi {
  constructor(private readonly transport: Transport) {}

  /** POST /core/api/v1/notes/ {patientKey, noteType, title?} → 201. */
  async create(input: CreateNoteInput): Promise<Note> {
    return (await this.transport.send<Note>('POST', paths.notes(), { json: input })).data;
  }

  async get(uuid: string): Promise<Note> {
    return (await this.transport.send<Note>('GET', paths.note(uuid))).data;
  }

  async list(options: NoteListOptions = {}): Promise<Paginated<Note>> {
    const query = { patient_key: options.patientKey, limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<Note>>('GET', paths.notes(), { query })).data;
  }

  async lock(uuid: string): Promise<Note> {
    return (await this.transport.send<Note>('POST', paths.noteLock(uuid))).data;
  }

  async unlock(uuid: string): Promise<Note> {
    return (await this.transport.send<Note>('POST', paths.noteUnlock(uuid))).data;
  }

  /** Soft delete: the note stays readable, marked deleted; the answer is the note. */
  async delete(uuid: string): Promise<Note> {
    return (await this.transport.send<Note>('DELETE', paths.note(uuid))).data;
  }
}
