// What the bare twins of both engines share (lib/bare-pg.ts, lib/bare-sqlite.ts;
// docs/performance.md, "Bare twins"): the errors they answer, the audit row of a read as Charta's
// read audit writes it (audit/reads.ts), and a list page with its capped count as Charta's
// repository answers it. The SQL itself stays with each twin: it is its engine's.
import crypto from 'node:crypto';

/** Charta's default CHARTA_LIST_COUNT_CAP: the count reads at most one row more. */
export const COUNT_CAP = 10_000;

export const micros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

export class NotFound extends Error {}
export class NotStaged extends Error {}
/** The status of a twin's refusal (the bench's requests never meet one; its probes might). */
export const statusOf = (err: unknown) => (err instanceof NotFound ? 404 : err instanceof NotStaged ? 400 : 500);

/** Who the twins write as: the bench token's staff user and its credential. */
export interface TwinActor {
  staffKey: string;
  credential: string;
}

type Command = { uuid: string; patient_key: string; note_uuid: string };

/** A read's audit row, in insert order (occurred_at … note_key): one per patient an answer shows. */
function readRow(
  who: TwinActor,
  action: string,
  entityType: string,
  entityId: string,
  keys: string[],
  route: string,
  patientKey: string,
  noteKey: string | null,
) {
  return [
    micros(),
    who.staffKey,
    who.credential,
    action,
    entityType,
    entityId,
    null,
    JSON.stringify({ read: route, keys }),
    crypto.randomUUID(),
    patientKey,
    noteKey,
  ];
}

/** The audit row of GET a command. */
export const commandRead = (who: TwinActor, c: Command) =>
  readRow(who, 'command.read', 'command', c.uuid, [c.uuid], 'GET /core/api/v1/commands/:uuid', c.patient_key, c.note_uuid);

/** The audit row of a page of one patient's commands, or none for an empty page. */
export function pageRead(who: TwinActor, patientKey: string, page: Command[]): unknown[] | undefined {
  if (page.length === 0) return undefined;
  const notes = new Set(page.map((c) => c.note_uuid));
  const keys = page.map((c) => c.uuid);
  return readRow(who, 'commands.listed', 'patient', patientKey, keys, 'GET /core/api/v1/commands', patientKey, notes.size === 1 ? page[0]!.note_uuid : null);
}

/** The answer for a page read with one row more than `limit`: the count only when there is a next page, up to the cap. */
export async function pageAnswer<T>(page: T[], limit: number, count: () => Promise<number> | number) {
  if (page.length <= limit) return { count: page.length, results: page };
  page.length = limit;
  const total = await count();
  return { count: Math.min(total, COUNT_CAP), count_is_estimate: total > COUNT_CAP, results: page };
}

/** A write's audit row for a command, in insert order (occurred_at … request_id, then its patient and note: the columns Charta fills since migration 018). */
export const writeAudit = (who: TwinActor, action: string, uuid: string, before: unknown, after: unknown, command: Readonly<Record<string, unknown>>) => [
  micros(),
  who.staffKey,
  who.credential,
  action,
  'command',
  uuid,
  before === null ? null : JSON.stringify(before),
  JSON.stringify(after),
  crypto.randomUUID(),
  String(command['patient_key']),
  String(command['note_uuid']),
];

/** A new staged plan in `note`, as the row Charta inserts (its columns in insert order). */
export function newPlan(who: TwinActor, note: { uuid: string; patient_key: string }, values: Record<string, unknown>) {
  const now = micros();
  return {
    uuid: crypto.randomUUID(),
    schema_key: 'plan',
    note_uuid: note.uuid,
    patient_key: note.patient_key,
    state: 'staged',
    data: JSON.stringify(values),
    originated_by: who.staffKey,
    edited_by: JSON.stringify([who.staffKey]),
    committed_by: null,
    entered_in_error_by: null,
    created_at: now,
    updated_at: now,
  };
}
