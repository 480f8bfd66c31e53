// A command row as the API shows it (snake_case, ISO timestamps with microseconds), and its ETag.
import type { CommandTable } from '../storage/schema.ts';
import { isoMicros } from '../lib/time.ts';

export interface CommandView {
  uuid: string;
  state: string;
  created_at: string;
  updated_at: string;
  schema_key: string;
  patient_key: string;
  note_key: string;
  originated_by: string;
  edited_by: string[];
  committed_by: string | null;
  entered_in_error_by: string | null;
  data: Record<string, unknown>;
}

export function toView(row: CommandTable): CommandView {
  return {
    uuid: row.uuid,
    state: row.state,
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
    schema_key: row.schema_key,
    patient_key: row.patient_key,
    note_key: row.note_uuid,
    originated_by: row.originated_by,
    edited_by: JSON.parse(row.edited_by) as string[],
    committed_by: row.committed_by,
    entered_in_error_by: row.entered_in_error_by,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/** Every change moves updated_at forward by at least a microsecond, so it identifies the version. */
export function etagOf(view: { uuid: string; updated_at: string }): string {
  return `"${view.updated_at.replace(/\D/g, '')}"`;
}

export const COMMAND_STATES = ['staged', 'committed', 'entered_in_error'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];
