// The signal channel of one process (docs/architecture.md, "Signals"): typed notices that
// something the runtime follows has changed, emitted by the operation that changed it once its
// transaction has committed, and handed to every listener of this process and to the relay that
// carries them to the other processes on the database (signals/pg-relay.ts, PostgreSQL only).
// The runtime reacts to signals and to nothing else: the log stream (logs/) is a sink, and no
// behaviour depends on what a log line says. A signal says "look again", never what to do: a
// listener reads the database for what changed, so a lost signal delays (until the runtime's poll)
// and loses nothing. Never throws.
import { processOrigin } from '../lib/ids.ts';

/** A plugin was installed, updated (its package), enabled, disabled or deleted, or its grants changed. */
export interface PluginsChanged {
  type: 'plugins-changed';
  plugin: string;
}

/** A plugin's secrets were set or removed (with nothing else of the plugin changed in that write). */
export interface SecretsChanged {
  type: 'secrets-changed';
  plugin: string;
}

/** A POST event was written into the outbox (a command change, a replayed dead letter): delivery looks for it. */
export interface OutboxWritten {
  type: 'outbox-written';
}

/**
 * A command or a note of a patient changed (created, updated, committed, locked…): the change
 * stream tells the clients following that patient or note to look again
 * (docs/api.md, "Change stream"). What changed and who changed it, never its content.
 */
export interface RecordChanged {
  type: 'record-changed';
  patient: string;
  /** The note the record is in (a command's), or is (a note's). */
  note: string;
  target: { type: 'command' | 'note'; id: string };
  /** A command's `created`, `updated`, `committed`, `deleted`, `entered_in_error`; a note's `created`, `locked`, `unlocked`, `deleted`. */
  action: string;
  /** Who changed it: a staff key, or `plugin:<name>`. */
  actor: string;
}

/**
 * An API key or an OAuth client was revoked (docs/configuration.md, "Credentials"): every process
 * forgets it from its credential cache and closes the log and change streams it opened, with the
 * close code 4401. `credential` is a principal's: `api_key:<id>` or `client:<client_id>`.
 */
export interface CredentialRevoked {
  type: 'credential-revoked';
  credential: string;
}

export type Signal = PluginsChanged | SecretsChanged | OutboxWritten | RecordChanged | CredentialRevoked;
export type SignalType = Signal['type'];
export const SIGNAL_TYPES: readonly SignalType[] = ['plugins-changed', 'secrets-changed', 'outbox-written', 'record-changed', 'credential-revoked'];

/** Where a listener's signal comes from: this process, or another one through the relay. */
export type SignalOrigin = 'local' | 'remote';
export type SignalListener = (signal: Signal, from: SignalOrigin) => void;

/** What a process sends and hears: emitted here, received from others (for tests and diagnostics). */
export type SignalCounts = Record<SignalOrigin, Record<SignalType, number>>;

const zero = (): Record<SignalType, number> => ({
  'plugins-changed': 0,
  'secrets-changed': 0,
  'outbox-written': 0,
  'record-changed': 0,
  'credential-revoked': 0,
});

/** What an operation needs of the channel (its Ctx holds one). */
export interface Signals {
  emit(signal: Signal): void;
}

export class SignalBus implements Signals {
  /** Names this bus across processes: the relay skips its own signals. */
  readonly origin = processOrigin();
  readonly counts: SignalCounts = { local: zero(), remote: zero() };
  private readonly listeners = new Set<SignalListener>();
  private readonly relays = new Set<(signal: Signal) => void>();

  /** A signal of this process: delivered here, and relayed to the other processes. */
  emit(signal: Signal): void {
    this.counts.local[signal.type]++;
    this.deliver(signal, 'local');
    for (const relay of this.relays) {
      try {
        relay(signal);
      } catch {
        // A relay's trouble never reaches the operation that signalled.
      }
    }
  }

  /** A signal from another process: delivered here, not relayed again. */
  receive(signal: Signal): void {
    this.counts.remote[signal.type]++;
    this.deliver(signal, 'remote');
  }

  /** Every signal from now on, this process's and the others'; returns the unsubscribe function. */
  subscribe(listener: SignalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Signals emitted by this process (for the PostgreSQL relay); returns the stop function. */
  onLocal(relay: (signal: Signal) => void): () => void {
    this.relays.add(relay);
    return () => this.relays.delete(relay);
  }

  private deliver(signal: Signal, from: SignalOrigin): void {
    for (const listener of this.listeners) {
      try {
        listener(signal, from);
      } catch {
        // One broken listener never stops the others.
      }
    }
  }
}
