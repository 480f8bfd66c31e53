// GET /core/api/v1/plugins/{name}/reads/: what the plugin's handlers read of the record, newest
// first, from the audit trail (docs/plugins.md, "Reading the record"; docs/api.md, "Plugins").
// A deleted plugin's reads stay listed: the audit trail keeps them.
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { isoMicros } from '../lib/time.ts';
import { invalid } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { listReads } from '../storage/audit-repository.ts';
import { pluginActor } from '../runtime/effects.ts';
import type { PluginRead } from '@charta/api';
import { requirePluginScope } from './representation.ts';

export async function listPluginReads(ctx: Ctx, name: string, query: { patient_key?: string }, page: Page): Promise<List<PluginRead>> {
  requirePluginScope(ctx);
  if (query.patient_key !== undefined && !KEY_RE.test(query.patient_key))
    throw invalid([{ field: 'patient_key', message: 'must be 32 lowercase hexadecimal characters' }]);
  const { rows, count } = await listReads(ctx.storage.reader, pluginActor(name), query.patient_key, page.limit, page.offset);
  return exactList(
    page,
    count,
    rows.map((row) => {
      const after = parsed(row.after);
      return {
        id: row.id,
        occurred_at: isoMicros(row.occurred_at),
        read: text(after.read) ?? '',
        patient_key: row.entity_type === 'patient' && row.entity_id !== '' ? row.entity_id : null,
        keys: Array.isArray(after.keys) ? after.keys.filter((k): k is string => typeof k === 'string') : [],
        rows: typeof after.rows === 'number' ? after.rows : 0,
        refused: row.action === 'plugin.read_refused' ? (text(after.refused) ?? '') : null,
        event_id: text(after.event_id),
        event_type: text(after.event_type) ?? '',
        handler: text(after.handler) ?? '',
        request_id: row.request_id,
      };
    }),
  );
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function parsed(json: string | null): Record<string, unknown> {
  try {
    const value = JSON.parse(json ?? '{}') as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
