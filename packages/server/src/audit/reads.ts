// Reads of patient data by API clients, in the audit trail (docs/operations.md, "Audit trail"):
// a route that answers patient data says so in its config (`auditRead`: the action and how to find
// the patients, notes and records in its answer), and this hook writes one audit row per patient
// the answer shows (so "who saw this patient's chart" is answered by the patient filter). Rows of
// the same moment go in one write (storage/audit-repository.ts, AuditBatch), beside plugins' reads
// (runtime/data-reads.ts), which are audited there. A read does not wait for its row: the answer
// goes at once and the row is written in that moment's batch, so a read is never slower for being
// audited, nor refused or held up when the database cannot take writes (read-only, full, locked:
// docs/api.md promises reads then). Rows the database refuses wait in memory, in order, and are
// written as soon as it takes writes again (tried every few seconds and at shutdown); the log says
// when rows wait and when they are written (docs/operations.md, "Audit trail").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Insertable } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { AuditEventTable } from '../storage/schema.ts';
import { AuditBatch } from '../storage/audit-repository.ts';
import { nowMicros } from '../lib/time.ts';

/** One patient's part of an answer: what was read of them. */
export interface ReadSubject {
  patientKey: string;
  noteKey?: string | null;
  entityType: string;
  entityId: string;
  /** The records read (command uuids, note uuids…), at most KEYS_AUDITED kept. */
  keys?: string[];
}

export interface ReadAudit {
  /** `command.read`, `commands.listed`, `patient.read`, `chart.read`… */
  action: string;
  /** The patients an answer shows, from its body (a record, or a page of them). */
  subjects(body: unknown, request: FastifyRequest): ReadSubject[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route answers patient data: its reads are audited (audit/reads.ts). */
    auditRead?: ReadAudit;
  }
}

const KEYS_AUDITED = 200;
/** Rows kept while the database refuses writes, at most; beyond, the oldest go (and the log says how many). */
const HELD_MAX = 100_000;
const RETRY_MS = 2000;

/** A page's records grouped by patient: one subject each (`entity` names what the page lists). */
export function pageSubjects<T extends { patient_key: string }>(
  entity: string,
  keyOf: (r: T) => string,
  noteOf?: (r: T) => string,
): (body: unknown) => ReadSubject[] {
  return (body) => {
    const results = ((body as { results?: T[] } | null)?.results ?? []) as T[];
    const byPatient = new Map<string, T[]>();
    for (const r of results) byPatient.set(r.patient_key, [...(byPatient.get(r.patient_key) ?? []), r]);
    return [...byPatient].map(([patientKey, rows]) => {
      const notes = noteOf === undefined ? [] : [...new Set(rows.map(noteOf))];
      return { patientKey, noteKey: notes.length === 1 ? notes[0]! : null, entityType: entity, entityId: patientKey, keys: rows.map(keyOf) };
    });
  };
}

export function registerReadAudit(app: FastifyInstance, storage: Storage): void {
  const batch = new AuditBatch(storage);
  const held: Array<Insertable<AuditEventTable>> = [];
  let dropped = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  /** The app is closing: rows that cannot be written now are reported lost, never retried (no timer outlives the app). */
  let closing = false;
  const hold = (rows: Array<Insertable<AuditEventTable>>, err: unknown) => {
    if (closing) {
      app.logs.emit({
        level: 'error',
        event: `audit: ${rows.length} rows of reads could not be written before the server stopped (${err instanceof Error ? err.message : String(err)}); they are lost`,
        success: false,
      });
      return;
    }
    if (held.length === 0)
      app.logs.emit({
        level: 'error',
        event: `audit: the rows of reads cannot be written (${err instanceof Error ? err.message : String(err)}); they wait in memory and are written once the database takes writes again`,
        success: false,
      });
    held.push(...rows);
    if (held.length > HELD_MAX) dropped += held.splice(0, held.length - HELD_MAX).length;
    // Unref'd: rows waiting never keep a stopping process alive (the close below writes them or says they are lost).
    retry ??= setTimeout(() => void writeHeld(), RETRY_MS).unref();
  };
  const writeHeld = async () => {
    retry = undefined;
    const rows = held.splice(0);
    if (rows.length === 0) return;
    try {
      await batch.append(...rows);
      app.logs.emit({
        level: dropped > 0 ? 'error' : 'info',
        event: `audit: ${rows.length} waiting rows of reads written${dropped > 0 ? `; ${dropped} were dropped (more than ${HELD_MAX} waited)` : ''}`,
      });
      dropped = 0;
    } catch (err) {
      hold(rows, err);
    }
  };
  // Before the database closes: the rows being written are waited for, then the waiting ones tried once more.
  app.addHook('onClose', async () => {
    await batch.settled();
    closing = true;
    clearTimeout(retry);
    retry = undefined;
    await writeHeld();
    await batch.settled();
  });
  app.addHook('preSerialization', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const audit = request.routeOptions.config.auditRead;
    const principal = request.principal;
    if (audit === undefined || principal === null || reply.statusCode >= 300) return payload;
    const at = nowMicros();
    const rows: Array<Insertable<AuditEventTable>> = audit.subjects(payload, request).map((s) => ({
      occurred_at: at,
      actor: principal.staffKey,
      credential: principal.credential,
      action: audit.action,
      entity_type: s.entityType,
      entity_id: s.entityId,
      before: null,
      after: JSON.stringify({ read: `${request.method} ${request.routeOptions.url}`, keys: (s.keys ?? [s.entityId]).slice(0, KEYS_AUDITED) }),
      request_id: request.id,
      patient_key: s.patientKey,
      note_key: s.noteKey ?? null,
    }));
    if (held.length > 0) hold(rows, undefined);
    else batch.append(...rows).catch((err: unknown) => hold(rows, err));
    return payload;
  });
}
