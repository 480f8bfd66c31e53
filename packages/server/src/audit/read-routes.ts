// What each route that answers patient data audits (audit/reads.ts; docs/operations.md, "Audit
// trail"): the action, and the patients (and notes) its answer shows.
import type { FastifyRequest } from 'fastify';
import { pageSubjects, type ReadAudit } from './reads.ts';

type Body = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** The patient of the path (`/patients/:key/…`). */
const pathPatient = (request: FastifyRequest) => {
  const params: unknown = request.params;
  return str((params as { key?: unknown } | null)?.key);
};

export const READ_AUDITS = {
  patient: { action: 'patient.read', subjects: (b) => [{ patientKey: str((b as Body).key), entityType: 'patient', entityId: str((b as Body).key) }] },
  patients: {
    action: 'patients.searched',
    subjects: (b) =>
      (((b as { results?: Body[] }).results ?? []) as Body[]).map((p) => ({ patientKey: str(p.key), entityType: 'patient', entityId: str(p.key) })),
  },
  /** A list under a patient's path: their chart, banner alerts, metadata. */
  patientList: (what: string): ReadAudit => ({
    action: `${what}.read`,
    subjects: (_b, request) => [{ patientKey: pathPatient(request), entityType: 'patient', entityId: pathPatient(request), keys: [what] }],
  }),
  note: {
    action: 'note.read',
    subjects: (b) => [{ patientKey: str((b as Body).patient_key), noteKey: str((b as Body).uuid), entityType: 'note', entityId: str((b as Body).uuid) }],
  },
  notes: { action: 'notes.listed', subjects: pageSubjects<{ patient_key: string; uuid: string }>('patient', (n) => n.uuid) },
  command: {
    action: 'command.read',
    subjects: (b) => [{ patientKey: str((b as Body).patient_key), noteKey: str((b as Body).note_key), entityType: 'command', entityId: str((b as Body).uuid) }],
  },
  commands: {
    action: 'commands.listed',
    subjects: pageSubjects<{ patient_key: string; uuid: string; note_key: string }>(
      'patient',
      (c) => c.uuid,
      (c) => c.note_key,
    ),
  },
} satisfies Record<string, ReadAudit | ((what: string) => ReadAudit)>;
