// A dead letter as the API shows it (docs/api.md, "Dead letters"): a POST event whose handler still
// failed after its last attempt (docs/plugins.md, "Delivery and guarantees"), with the event.
import type { DeadLetter } from '@charta/api';
import { isoMicros } from '../lib/time.ts';
import type { DeadLetterRow } from '../storage/plugin-dead-letters-repository.ts';

export interface DeadLetterView {
  id: number;
  plugin: string;
  /** `<entry>:<class>`. */
  handler: string;
  event_id: string;
  event_type: string;
  /** What the event is about: a command, a note or a patient. */
  target: DeadLetter['target'];
  /** The command's uuid when the event is about one; null for a note's or a patient's event. */
  command: string | null;
  attempts: number;
  last_error: string;
  request_id: string | null;
  /** When the event was written. */
  created_at: string;
  /** When its last attempt failed. */
  failed_at: string;
  /** The event as the handler was given it. */
  event: Record<string, unknown>;
}

export function toDeadLetterView(row: DeadLetterRow): DeadLetterView {
  return {
    id: row.id,
    plugin: row.plugin_name,
    handler: row.handler,
    event_id: row.event_id,
    event_type: row.event_type,
    target: { type: row.target_type, id: row.target_id },
    command: row.target_type === 'command' ? row.target_id : null,
    attempts: row.attempts,
    last_error: row.last_error,
    request_id: row.request_id,
    created_at: isoMicros(row.created_at),
    failed_at: isoMicros(row.failed_at),
    event: JSON.parse(row.payload) as Record<string, unknown>,
  };
}
