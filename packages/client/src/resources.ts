// Patients and notes: what a note needs before commands can be written into it.
import type { BannerAlert, CreateNote, CreatePatient, Note, Paginated, Patient } from '@charta/api';
import { paths } from './paths.ts';
import type { Transport } from './transport.ts';

export type CreatePatientInput = CreatePatient;
export type CreateNoteInput = CreateNote;

export interface PageOptions {
  limit?: number;
  offset?: number;
}

export interface NoteListOptions {
  patientKey?: string;
  limit?: number;
  offset?: number;
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

  /** GET /core/api/v1/patients/{key}/banner-alerts/: the banner alerts plugins added, oldest first (a clinical token). */
  async bannerAlerts(key: string, options: PageOptions = {}): Promise<Paginated<BannerAlert>> {
    const query = { limit: options.limit, offset: options.offset };
    return (await this.transport.send<Paginated<BannerAlert>>('GET', paths.patientBannerAlerts(key), { query })).data;
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
