// A command row as the API shows it (snake_case, ISO timestamps with microseconds), and its ETag.
import type { CommandTable } from '../storage/schema.ts';
import { isoMicros } from '../lib/time.ts';
import type { Command } from '@charta/api';

/** A command as the API shows it: the wire's Command (@charta/api). */
export type CommandView = Command;

/** A view's stored `data`: its JSON text as written, and the object once something read it. */
interface StoredData {
  text: string;
  parsed?: Record<string, unknown>;
}
const STORED = Symbol('stored data');

/**
 * `data` of every view: an own enumerable accessor, so spreading, JSON.stringify and
 * structuredClone see it, that parses the stored text when first read. One pair of functions
 * shared by every view (they find the text under STORED): closures made per view cost about
 * 1.7 µs each, most of a page's views (docs/performance.md, "The view's data accessor").
 */
const DATA: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { [STORED]: StoredData }) {
    const stored = this[STORED];
    return (stored.parsed ??= JSON.parse(stored.text) as Record<string, unknown>);
  },
  set(this: { [STORED]: StoredData }, value: Record<string, unknown>) {
    this[STORED].parsed = value;
  },
};

/**
 * The row as the API shows it. `data` is parsed only when something reads it (an event, an
 * effect, a rule): a response that only sends it writes the stored text as it is (commandJson).
 */
export function toView(row: CommandTable): CommandView {
  const view = {
    uuid: row.uuid,
    state: row.state as Command['state'],
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
    schema_key: row.schema_key as Command['schema_key'],
    patient_key: row.patient_key,
    note_key: row.note_uuid,
    originated_by: row.originated_by,
    edited_by: JSON.parse(row.edited_by) as string[],
    committed_by: row.committed_by,
    entered_in_error_by: row.entered_in_error_by,
  } as CommandView;
  Object.defineProperty(view, 'data', DATA);
  Object.defineProperty(view, STORED, { value: { text: row.data } satisfies StoredData });
  return view;
}

/** Whether `body` is a view made by toView, which commandJson writes without parsing its data. */
export const isStoredView = (body: unknown): body is CommandView => typeof body === 'object' && body !== null && STORED in body;

const text = JSON.stringify;

/**
 * The JSON of a view made by toView, as the Command schema would write it (docs/api.md): the
 * stored `data` is written as it was stored (Charta stores JSON.stringify's output, which JSON.parse
 * and JSON.stringify give back unchanged), unless something read or replaced it.
 */
export function commandJson(view: CommandView): string {
  const stored = (view as { [STORED]?: StoredData })[STORED];
  const data = stored !== undefined && stored.parsed === undefined ? stored.text : text(view.data);
  return (
    `{"uuid":${text(view.uuid)},"state":${text(view.state)},"created_at":${text(view.created_at)},"updated_at":${text(view.updated_at)}` +
    `,"schema_key":${text(view.schema_key)},"patient_key":${text(view.patient_key)},"note_key":${text(view.note_key)}` +
    `,"originated_by":${text(view.originated_by)},"edited_by":${text(view.edited_by)},"committed_by":${text(view.committed_by)}` +
    `,"entered_in_error_by":${text(view.entered_in_error_by)},"data":${data}}`
  );
}

/** The JSON of a page of views (`results` last, as in the CommandPage schema). */
export function commandPageJson(page: { results: CommandView[] }): string {
  const { results, ...envelope } = page;
  return `${text(envelope).slice(0, -1)},"results":[${results.map(commandJson).join(',')}]}`;
}

/** Every change moves updated_at forward by at least a microsecond, so it identifies the version. */
export function etagOf(view: { uuid: string; updated_at: string }): string {
  return `"${view.updated_at.replace(/\D/g, '')}"`;
}
