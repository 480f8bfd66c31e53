// Streams end with their credential (docs/configuration.md, "Credentials"): a log stream or a
// change stream opened with an API key, or a token of an OAuth client, is closed with 4401 as soon
// as that key or client is revoked, on whichever process it is open (the `credential-revoked`
// signal, relayed between processes on PostgreSQL: signals/pg-relay.ts), and when the credential
// expires (its principal's `expiresMs`). A revocation written by another program, which signals
// nothing (`charta-server revoke-api-key` beside a running server, on either engine), is found by
// `watchRevocations`, which looks for one every second.
import type { WebSocket } from 'ws';
import type { SignalBus } from '../signals/bus.ts';
import type { Storage } from '../storage/db.ts';
import { revokedSince } from '../storage/auth-repository.ts';
import { nowMicros } from '../lib/time.ts';
import type { Principal } from './principal.ts';

export const REVOKED_CLOSE = { code: 4401, reason: 'The credentials of this stream were revoked' } as const;
export const EXPIRED_CLOSE = { code: 4401, reason: 'The credentials of this stream have expired' } as const;

/** How often a process looks for revocations it was not told of (ms). */
export const REVOCATION_POLL_MS = 1000;
/**
 * How far back each look reaches (µs): a revocation is stamped inside its transaction, which may
 * commit a moment later than a look that had already passed its stamp.
 */
const LOOKBACK_US = 60_000_000;
/** setTimeout's longest delay; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Closes `socket` with 4401 when the credential of `principal` is revoked or expires; stops listening when the socket closes. */
export function closeOnRevocation(signals: SignalBus, socket: WebSocket, principal: Principal): void {
  let timer: NodeJS.Timeout | undefined;
  const close = (why: { code: number; reason: string }) => {
    stop();
    if (socket.readyState === 1) socket.close(why.code, why.reason);
  };
  const unsubscribe = signals.subscribe((signal) => {
    if (signal.type === 'credential-revoked' && signal.credential === principal.credential) close(REVOKED_CLOSE);
  });
  const stop = () => {
    unsubscribe();
    clearTimeout(timer);
  };
  const expiresMs = principal.expiresMs;
  if (expiresMs !== undefined) {
    const arm = () => {
      const left = expiresMs - Date.now();
      if (left <= 0) close(EXPIRED_CLOSE);
      else timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS)).unref();
    };
    arm();
  }
  socket.once('close', stop);
}

/**
 * Looks every REVOCATION_POLL_MS for keys and clients revoked by another program (or by a process
 * whose signal was lost) and delivers each once to this process's listeners as a
 * `credential-revoked` signal: the credential cache forgets it, its streams close. Delivered here
 * only, never relayed (every process looks for itself). Returns the stop function, which resolves
 * once a look under way has ended (the storage closes after it).
 */
export function watchRevocations(storage: Storage, signals: SignalBus): () => Promise<void> {
  /** Revocations already delivered (or signalled here), with their stamp: kept for LOOKBACK_US. */
  const known = new Map<string, number>();
  const unsubscribe = signals.subscribe((signal) => {
    if (signal.type === 'credential-revoked') known.set(signal.credential, nowMicros());
  });
  let looking: Promise<void> | undefined;
  const look = async () => {
    try {
      const since = nowMicros() - LOOKBACK_US;
      for (const [credential, at] of known) if (at < since) known.delete(credential);
      for (const { credential, revokedAt } of await revokedSince(storage.reader, since)) {
        if (known.has(credential)) continue;
        known.set(credential, Math.max(revokedAt, since));
        signals.receive({ type: 'credential-revoked', credential });
      }
    } catch {
      // The database refused the look (a restart, a fault): the next one tries again.
    }
  };
  const interval = setInterval(() => {
    looking ??= look().finally(() => (looking = undefined));
  }, REVOCATION_POLL_MS);
  interval.unref();
  return async () => {
    clearInterval(interval);
    unsubscribe();
    await looking;
  };
}
