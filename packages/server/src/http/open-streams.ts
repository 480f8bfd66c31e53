// A cap on open WebSocket streams (the log stream and the change stream; docs/api.md, "Streams
// open at once"): each holds a socket, a subscription and its buffers for as long as the client
// keeps it, so a client that opens them without end would hold the server's memory. Each principal
// (its credential, and the staff member a token acts for: the console's users share one OAuth
// client) may keep MAX_STREAMS_PER_PRINCIPAL open; past it a new one is closed with 4429. All
// sockets of a process, still authenticating ones included, are capped at MAX_STREAMS: past it a
// new one is closed with 1013 (try again later).
import type { WebSocket } from 'ws';

export const MAX_STREAMS_PER_PRINCIPAL = 16;
export const MAX_STREAMS = 1000;

/** The close of a principal's stream one too many (4429). */
export const tooManyForPrincipal = (most: number) => ({
  code: 4429,
  reason: `Too many streams open with these credentials (at most ${most}): close one first`,
});
export const TOO_MANY_IN_ALL = { code: 1013, reason: 'Too many streams open on this server: try again later' } as const;

declare module 'fastify' {
  interface FastifyInstance {
    /** The log and change streams open on this app. */
    streams: OpenStreams;
  }
}

export class OpenStreams {
  private readonly byPrincipal = new Map<string, number>();
  private sockets = 0;

  constructor(
    readonly perPrincipal = MAX_STREAMS_PER_PRINCIPAL,
    readonly total = MAX_STREAMS,
  ) {}

  /** A new socket: counted until it closes, or closed at once (1013) when the server has `total` open. Whether it may go on. */
  admit(socket: WebSocket): boolean {
    if (this.sockets >= this.total) {
      socket.close(TOO_MANY_IN_ALL.code, TOO_MANY_IN_ALL.reason);
      return false;
    }
    this.sockets += 1;
    socket.once('close', () => (this.sockets -= 1));
    return true;
  }

  /** The socket's principal is known: counted against it until the socket closes, or the socket closed (4429) when it has `perPrincipal` open. Whether it may follow. */
  follow(socket: WebSocket, principal: { credential: string; staffKey: string | null }): boolean {
    const key = `${principal.credential}\n${principal.staffKey ?? ''}`;
    const open = this.byPrincipal.get(key) ?? 0;
    if (open >= this.perPrincipal) {
      const { code, reason } = tooManyForPrincipal(this.perPrincipal);
      socket.close(code, reason);
      return false;
    }
    this.byPrincipal.set(key, open + 1);
    socket.once('close', () => {
      const left = (this.byPrincipal.get(key) ?? 1) - 1;
      if (left === 0) this.byPrincipal.delete(key);
      else this.byPrincipal.set(key, left);
    });
    return true;
  }

  /** Sockets open now (for metrics and tests). */
  get open(): number {
    return this.sockets;
  }
}
