// Reading the record from a handler (docs/plugins.md, "Reading the record"): the instance's source
// of the `data` binding behind `this.data` in the sandbox. Each read is answered by the operation
// its REST route calls (the same validation, the same views), as the plugin's own user
// `plugin:<name>`. What every read is held to (the call, what the manifest declares, the budget,
// the scope, the arguments) is data-access.ts's, shared with the fixture a plugin's tests read
// (fixture-reads.ts). Here: the reads themselves, the `data:instance` grant as stored, and the
// audit trail: one row per read (answered or refused), the plugin as actor, the event, what was
// read and how many rows. Outside a PRE call the row is written before the data is given; a PRE
// call's change is not written yet (its transaction may hold the only writer), so its reads' rows
// are written right after, without waiting.
import { ListCommandsQuery, ListNotesQuery, PageQuery, ReferenceReadQuery } from '@charta/api';
import { MAX_LIMIT, REFERENCE_CATALOGUES, type DataResource } from '@charta/api/constants';
import type { Ctx } from '../context.ts';
import type { Storage } from '../storage/db.ts';
import type { LogBus } from '../logs/bus.ts';
import { AuditBatch } from '../storage/audit-repository.ts';
import { getPluginGrants } from '../storage/plugins-repository.ts';
import type { List } from '../http/pagination.ts';
import { KEY_RE, UUID_RE } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { getPatient } from '../patients/get.ts';
import { listPatientMetadata } from '../patients/list-metadata.ts';
import { getNote } from '../notes/get.ts';
import { listNotes } from '../notes/list.ts';
import { getCommand } from '../commands/get.ts';
import { listCommands } from '../commands/list.ts';
import { readChart } from '../chart/read.ts';
import { listBannerAlerts } from '../chart/banner-alerts.ts';
import { entriesPage, entryById } from '../reference/list-entries.ts';
import { catalogueNamed } from '../reference/catalogues.ts';
import { searchConcepts, toConcept } from '../terminology/search.ts';
import { codeKey } from '../terminology/normalize.ts';
import { conceptsByCodeKey } from '../storage/concepts-repository.ts';
import type { Bindings } from './bindings.ts';
import { pluginActor, pluginPrincipal } from './effects.ts';
import type { CallContext } from './calls.ts';
import { storedGrants } from './grants.ts';
import {
  catalogueArg,
  codeArg,
  searchArgs,
  systemArg,
  systemsArg,
  checkedQuery,
  entryIdArg,
  parentOf,
  dataBinding,
  DataError,
  keyArg,
  listAnswer,
  pageOf,
  PATIENT_KEY,
  UUID,
  DATA_BINDING,
  type Read,
  type ReadRecord,
  type ReadScope,
} from './data-access.ts';
import type { JsonObject, JsonValue } from './sandbox/types.ts';

export interface DataEnv {
  storage: Storage;
  logs: LogBus;
  /** How far a list counts its rows exactly (CHARTA_LIST_COUNT_CAP). */
  listCountCap?: number;
}

/** Keys named in one audit row, at most. */
const KEYS_AUDITED = 2000;

export function registerDataReads(bindings: Bindings, env: DataEnv): void {
  const auditRows = new AuditBatch(env.storage);
  // The reads go to the plugins' own read connections (storage/db.ts `pluginReader`); their audit rows to the writer.
  const reads: Storage = { ...env.storage, reader: env.storage.pluginReader };
  const ctxOf = (call: CallContext): Ctx => ({
    storage: reads,
    principal: pluginPrincipal(call.handler.plugin),
    requestId: call.requestId ?? '',
    logs: env.logs,
  });
  const countCap = env.listCountCap ?? 10_000;

  /** The read itself: its answer and what the audit says of it. */
  const read = async (call: CallContext, resource: DataResource, op: string, args: JsonObject, scope: ReadScope): Promise<{ value: JsonValue; read: Read }> => {
    const ctx = ctxOf(call);
    const done = (value: JsonValue, patient: string | null, keys: string[], rows: number) => ({ value, read: { resource, op, patient, keys, rows } });
    /** A note or command by its uuid, if its patient is within reach. */
    const byUuid = async (find: (ctx: Ctx, uuid: string) => Promise<{ patient_key: string }>) => {
      const uuid = keyArg(args, 'uuid', UUID_RE, UUID);
      const found = await find(ctx, uuid);
      await scope.reach(found.patient_key);
      return done(found as unknown as JsonValue, found.patient_key, [uuid], 1);
    };
    const page = (list: List<{ uuid: string }>, patient: string | undefined) =>
      done(
        listAnswer(list),
        patient ?? null,
        list.results.map((r) => r.uuid),
        list.results.length,
      );
    switch (`${resource}.${op}`) {
      case 'patients.get': {
        const key = keyArg(args, 'key', KEY_RE, PATIENT_KEY);
        await scope.reach(key);
        return done((await getPatient(ctx, key)) as unknown as JsonValue, key, [key], 1);
      }
      case 'patients.metadata': {
        const key = keyArg(args, 'key', KEY_RE, PATIENT_KEY);
        await scope.reach(key);
        const list = await listPatientMetadata(ctx, key, pageOf(checkedQuery(PageQuery, args.page)));
        return done(listAnswer(list), key, [key], list.results.length);
      }
      case 'notes.get':
        return byUuid(getNote);
      case 'notes.list': {
        const query = checkedQuery(ListNotesQuery, args.query);
        const patient = await scope.scopedPatient(query.patient_key);
        return page(await listNotes(ctx, { ...query, patient_key: patient }, pageOf(query), countCap), patient);
      }
      case 'commands.get':
        return byUuid(getCommand);
      case 'commands.list': {
        const query = checkedQuery(ListCommandsQuery, args.query);
        const patient = await scope.scopedPatient(query.patient_key);
        const filters: Record<string, string> = {};
        for (const [name, value] of Object.entries(query)) if (typeof value === 'string') filters[name] = value;
        if (patient !== undefined) filters.patient_key = patient;
        return page(await listCommands(ctx, filters, pageOf(query), countCap), patient);
      }
      case 'terminology.search': {
        const systems = systemsArg(args);
        const { term, limit } = searchArgs(args);
        const concepts = await searchConcepts(reads.reader, env.storage.engine, systems, term, limit);
        return done(
          concepts as unknown as JsonValue,
          null,
          concepts.map((c) => `${c.system}|${c.code}`),
          concepts.length,
        );
      }
      case 'terminology.lookup': {
        const system = systemArg(args.system);
        const code = codeArg(args);
        const concept = (await conceptsByCodeKey(reads.reader, [system], codeKey(code), 10)).map(toConcept).find((c) => codeKey(c.code) === codeKey(code));
        if (concept === undefined) throw new DataError('not_found', `${system} has no active concept ${code}`);
        return done(concept as unknown as JsonValue, null, [`${system}|${concept.code}`], 1);
      }
      case 'reference.list': {
        const name = catalogueArg(args);
        const query = checkedQuery(ReferenceReadQuery, args.query);
        const list = await entriesPage(reads.reader, catalogueNamed(name), pageOf(query), parentOf(name, query));
        const key = REFERENCE_CATALOGUES[name].key;
        return done(
          listAnswer(list),
          null,
          list.results.map((r) => String((r as Record<string, unknown>)[key])),
          list.results.length,
        );
      }
      case 'reference.get': {
        const name = catalogueArg(args);
        const id = entryIdArg(args);
        const entry = await entryById(reads.reader, catalogueNamed(name), id);
        if (entry === undefined) throw new DataError('not_found', `${name} has no entry ${id}`);
        return done(entry as JsonValue, null, [id], 1);
      }
      case 'chart.get': {
        const key = keyArg(args, 'patient_key', KEY_RE, PATIENT_KEY);
        await scope.reach(key);
        const all = { limit: MAX_LIMIT, offset: 0 };
        const [conditions, medications, goals, alerts] = await Promise.all([
          readChart(ctx, 'condition', key, {}, all),
          readChart(ctx, 'medication', key, {}, all),
          readChart(ctx, 'goal', key, {}, all),
          listBannerAlerts(ctx, key, all),
        ]);
        const rows = conditions.results.length + medications.results.length + goals.results.length + alerts.results.length;
        const value = {
          patient_key: key,
          conditions: conditions.results,
          medications: medications.results,
          goals: goals.results,
          banner_alerts: alerts.results,
        } as unknown as JsonValue;
        return done(value, key, [key], rows);
      }
      default:
        throw new DataError('invalid', `${resource} has no read ${JSON.stringify(op.slice(0, 40))}`);
    }
  };

  /** The audit row of a read, answered or refused (written before the answer, but for a PRE call's). */
  const audit = async (call: CallContext, what: ReadRecord): Promise<void> => {
    const actor = pluginActor(call.handler.plugin);
    const row = {
      occurred_at: nowMicros(),
      actor,
      credential: actor,
      action: what.refused === undefined ? 'plugin.read' : 'plugin.read_refused',
      entity_type: what.patient === null ? `data.${what.resource}` : 'patient',
      entity_id: what.patient ?? '',
      before: null,
      after: JSON.stringify({
        event_id: call.event.id ?? null,
        event_type: call.type,
        handler: call.handler.id,
        read: `${what.resource}.${what.op}`,
        keys: what.keys.slice(0, KEYS_AUDITED),
        rows: what.rows,
        ...(what.refused === undefined ? {} : { refused: what.refused }),
      }),
      request_id: call.requestId ?? null,
      patient_key: what.patient,
      note_key: null,
    };
    const written = auditRows.append(row);
    if (!call.pre) {
      await written;
      return;
    }
    written.catch((err: unknown) =>
      env.logs.emit({
        level: 'error',
        event: `plugin ${call.handler.plugin}: the audit row of a read by ${call.handler.id} could not be written: ${err instanceof Error ? err.message : String(err)}`,
        plugin: call.handler.plugin,
        success: false,
      }),
    );
  };

  bindings.register(
    DATA_BINDING,
    dataBinding({
      instanceGranted: async (call) => storedGrants((await getPluginGrants(reads.reader, call.handler.plugin))?.grants).includes('data:instance'),
      read,
      record: audit,
    }),
  );
}
