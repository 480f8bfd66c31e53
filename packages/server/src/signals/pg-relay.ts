// PostgreSQL only: the signals across processes (docs/architecture.md, "Signals"). Signals emitted
// here are published with NOTIFY on their own channel, `charta_signals` (not the log stream's
// `charta_logs`: a flood of log lines neither delays nor drops a signal), on a dedicated
// connection with the same machinery as the log relay (storage/pg-notify.ts: reconnection, the
// queue while the connection is away); signals of other processes arrive by LISTEN and are
// delivered locally. A process skips its own by their origin. A signal equal to one still waiting
// to be published is not queued twice (a signal says "look again"). A signal lost with the
// connection is caught up by the runtime's poll (runtime/index.ts, POLL_MS).
import { startRelay, type Relay, type RelayStats } from '../storage/pg-notify.ts';
import { SIGNAL_TYPES, type Signal, type SignalBus } from './bus.ts';

export const SIGNAL_CHANNEL = 'charta_signals';
/** Signals waiting for the connection at most (identical ones are merged, so few ever wait). */
const MAX_PENDING = 1000;

export type SignalRelay = Relay;

/** The NOTIFY payload of a signal. */
export function signalPayload(signal: Signal, origin: string): string {
  return JSON.stringify({ ...signal, origin });
}

/** A NOTIFY payload from another process as a signal; undefined if it is ours or malformed. */
export function signalOf(payload: string, ownOrigin: string): Signal | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.origin !== 'string' || r.origin === ownOrigin) return undefined;
  if (!SIGNAL_TYPES.includes(r.type as Signal['type'])) return undefined;
  if (r.type === 'outbox-written') return { type: r.type };
  if (r.type === 'record-changed') {
    const t = r.target as Record<string, unknown> | null;
    const text = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 200;
    if (
      ![r.patient, r.note, r.action, r.actor].every(text) ||
      t === null ||
      typeof t !== 'object' ||
      (t.type !== 'command' && t.type !== 'note') ||
      !text(t.id)
    ) {
      return undefined;
    }
    return {
      type: 'record-changed',
      patient: r.patient as string,
      note: r.note as string,
      target: { type: t.type, id: t.id as string },
      action: r.action as string,
      actor: r.actor as string,
    };
  }
  if (r.type === 'credential-revoked') {
    return typeof r.credential === 'string' && r.credential.length > 0 && r.credential.length <= 300 ? { type: r.type, credential: r.credential } : undefined;
  }
  if (typeof r.plugin !== 'string') return undefined;
  return { type: r.type as 'plugins-changed' | 'secrets-changed', plugin: r.plugin };
}

export const startSignalRelay = (
  url: string,
  bus: SignalBus,
  onError: (err: unknown) => void = () => undefined,
  onReconnect: (stats: RelayStats) => void = () => undefined,
): Promise<SignalRelay> =>
  startRelay(bus, {
    url,
    channel: SIGNAL_CHANNEL,
    applicationName: 'charta-signal-relay',
    maxPending: MAX_PENDING,
    coalesce: true,
    encode: signalPayload,
    decode: signalOf,
    onError,
    onReconnect,
  });
