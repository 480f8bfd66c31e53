// The metrics of one process (docs/operations.md, "Monitoring"), kept by prom-client in the
// Prometheus text format. What happens on a request's path or a plugin call is counted there, in
// O(1): a counter or a histogram, each labelled only with bounded identifiers (a route's pattern,
// never its URL; a status; a plugin and its handler as the operator installed them; an outcome of
// a fixed set). What stands at a moment (pools, the outbox, the log stream, plugins' memory) is
// read only when a scrape asks, by the collect callbacks of gauges. Labels never carry keys,
// patient data or free text.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Storage, StorageObserver } from '../storage/db.ts';
import { outboxBacklog } from '../storage/plugin-events-repository.ts';
import { nowMicros } from '../lib/time.ts';
import type { LogBus } from '../logs/bus.ts';
import type { CallOutcomeKind } from '../runtime/calls.ts';
import type { RunnerStats } from '../runtime/runner/protocol.ts';

/** Request latency buckets, in seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Waits for a database connection (or, on SQLite, for a write's batch), in seconds. */
const WAIT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
/** Writes in one group-commit transaction (at most 64: storage/group-commit.ts). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
/** Plugin handler calls, in seconds (a manifest's deadline is at most CHARTA_PLUGIN_MAX_TIMEOUT_MS, 60 s). */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** The outbox is counted up to this many events at a scrape (storage/plugin-events-repository.ts). */
export const OUTBOX_COUNT_CAP = 100_000;
/** How long a scrape waits for the plugin runner's memory before it answers without it. */
const RUNNER_STATS_MS = 2000;
/** The route of a request no route matched: never its URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the gauges read when a scrape asks. */
export interface MetricSources {
  storage: Pick<Storage, 'engine' | 'pools' | 'reader' | 'groupCommit'>;
  logs: Pick<LogBus, 'subscribers' | 'droppedLines'>;
  /** The plugin runner's memory: null while no runner runs. */
  runnerStats(): Promise<RunnerStats | null>;
}

/**
 * Process metrics (prom-client's defaults: CPU, resident memory, heap, event-loop delay, GC), one
 * registry per process however many apps it builds (tests build many), so their monitors are made once.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class Metrics {
  /** This app's metrics (the process's own are apart: `registries`). */
  readonly registry = new Registry();
  /** What a scrape answers; under `--workers` every worker's (metrics/cluster.ts). */
  gather: () => Promise<string> = () => this.local();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly calls: Counter<'plugin' | 'handler' | 'outcome'>;
  private readonly callLatency: Histogram<'plugin' | 'handler'>;
  /** Told by the storage as it works (storage/db.ts `observe`). */
  readonly storage: StorageObserver;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'charta_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'charta_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.calls = new Counter({
      name: 'charta_plugin_calls_total',
      help: 'Plugin handler calls, by plugin, handler (<entry>:<class>) and outcome',
      labelNames: ['plugin', 'handler', 'outcome'],
      registers,
    });
    this.callLatency = new Histogram({
      name: 'charta_plugin_call_duration_seconds',
      help: "Time of a plugin handler call as the server sees it (its wait behind the plugin's earlier calls included)",
      labelNames: ['plugin', 'handler'],
      buckets: CALL_BUCKETS,
      registers,
    });
    const waits = new Histogram({
      name: 'charta_db_wait_seconds',
      help: 'Time waited for a database connection (PostgreSQL), or by a write for its group-commit transaction (SQLite writer)',
      labelNames: ['pool'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    const batches = new Histogram({
      name: 'charta_db_group_commit_batch_size',
      help: 'Writes in one SQLite group-commit transaction',
      buckets: BATCH_BUCKETS,
      registers: sources.storage.engine === 'sqlite' ? registers : [],
    });
    this.storage = {
      waitedFor: (pool, seconds) => waits.observe({ pool }, seconds),
      batch: (writes) => batches.observe(writes),
    };
    this.gauges(sources, registers);
  }

  /** A request answered (O(1)): its route pattern (UNMATCHED_ROUTE when none matched), never its URL. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }

  /** A plugin handler call ended (O(1)); the outcome's kind with underscores (`out_of_memory`). */
  pluginCall(plugin: string, handler: string, outcome: CallOutcomeKind, seconds: number): void {
    this.calls.inc({ plugin, handler, outcome: outcome.replaceAll('-', '_') });
    this.callLatency.observe({ plugin, handler }, seconds);
  }

  /** The process's registry and this app's: what a worker hands to the primary (metrics/cluster.ts). */
  registries(): Registry[] {
    return [processMetrics(), this.registry];
  }

  /** Labels every series of this process with `labels` (a worker's slot). */
  label(labels: Record<string, string>): void {
    for (const registry of this.registries()) registry.setDefaultLabels(labels);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** This process's metrics, in the text format. */
  async local(): Promise<string> {
    const texts = await Promise.all(this.registries().map((r) => r.metrics()));
    return texts.join('');
  }

  /** The gauges: every one is read when a scrape asks, never on a request's path. */
  private gauges({ storage, logs, runnerStats }: MetricSources, registers: Registry[]): void {
    const pools = () => storage.pools();
    new Gauge({
      name: 'charta_db_connections',
      help: 'Database connections by pool and state (busy: checked out; SQLite: the one writer, busy while a batch runs)',
      labelNames: ['pool', 'state'],
      registers,
      collect() {
        this.reset();
        for (const p of pools()) {
          this.set({ pool: p.pool, state: 'busy' }, p.busy);
          this.set({ pool: p.pool, state: 'idle' }, p.idle);
        }
      },
    });
    new Gauge({
      name: 'charta_db_connections_max',
      help: 'Most connections of each pool',
      labelNames: ['pool'],
      registers,
      collect() {
        this.reset();
        for (const p of pools()) this.set({ pool: p.pool }, p.max);
      },
    });
    new Gauge({
      name: 'charta_db_waiting',
      help: 'Queries waiting for a connection now (PostgreSQL), or writes queued for the next group-commit transaction (SQLite writer)',
      labelNames: ['pool'],
      registers,
      collect() {
        this.reset();
        for (const p of pools()) this.set({ pool: p.pool }, p.waiting);
      },
    });
    if (storage.engine === 'sqlite') {
      new Counter({
        name: 'charta_db_group_commit_parked_total',
        help: "Writes set aside from a group-commit transaction for a plugin's slow PRE check, to run again in a later one",
        registers,
        collect() {
          this.reset();
          this.inc(storage.groupCommit?.parked ?? 0);
        },
      });
    }
    const outboxEvents = new Gauge({
      name: 'charta_plugin_outbox_events',
      help: `POST events waiting in the outbox for delivery to plugins (counted up to ${OUTBOX_COUNT_CAP}; NaN when the database did not answer)`,
      registers,
    });
    new Gauge({
      name: 'charta_plugin_outbox_oldest_age_seconds',
      help: 'Age of the oldest POST event waiting in the outbox (0 when none waits; NaN when the database did not answer)',
      registers,
      async collect() {
        try {
          const backlog = await outboxBacklog(storage.reader, OUTBOX_COUNT_CAP);
          outboxEvents.set(backlog.events);
          this.set(backlog.oldestCreatedAt === null ? 0 : Math.max(0, (nowMicros() - backlog.oldestCreatedAt) / 1e6));
        } catch {
          outboxEvents.set(NaN);
          this.set(NaN);
        }
      },
    });
    const runnerMemory = new Gauge({
      name: 'charta_plugin_runner_resident_memory_bytes',
      help: "Resident memory of this process's plugin runner (0 while none runs)",
      registers,
    });
    new Gauge({
      name: 'charta_plugin_memory_bytes',
      help: "Memory each loaded plugin's sandbox holds, as the runner reports it",
      labelNames: ['plugin'],
      registers,
      async collect() {
        this.reset();
        const stats = await withinMs(
          runnerStats().catch(() => null),
          RUNNER_STATS_MS,
        );
        runnerMemory.set(stats?.rssBytes ?? 0);
        for (const p of stats?.plugins ?? []) if (p.memoryBytes !== null) this.set({ plugin: p.name }, p.memoryBytes);
      },
    });
    new Gauge({
      name: 'charta_log_stream_subscribers',
      help: 'Log stream WebSocket subscribers of this process',
      registers,
      collect() {
        this.set(logs.subscribers);
      },
    });
    new Counter({
      name: 'charta_log_stream_dropped_lines_total',
      help: 'Log stream lines dropped for subscribers too slow to take them',
      registers,
      collect() {
        this.reset();
        this.inc(logs.droppedLines);
      },
    });
  }
}

/** `promise`'s value, or null if it has not settled within `ms`. */
function withinMs<T>(promise: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
