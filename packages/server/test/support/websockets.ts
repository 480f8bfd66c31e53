// A real WebSocket client for the tests: opened (or rejected with the HTTP status of a refused
// upgrade), every message parsed as JSON and kept, and a wait for the n-th message.
import WebSocket from 'ws';

export interface JsonSocket<M> {
  ws: WebSocket;
  /** Every message, parsed, in order. */
  messages: M[];
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  /** Waits until `n` messages arrived in all (or fails after `ms`). */
  upTo(n: number, ms?: number): Promise<M[]>;
  close(): void;
}

export async function openJsonSocket<M = Record<string, unknown>>(url: string, headers: Record<string, string> = {}): Promise<JsonSocket<M>> {
  const ws = new WebSocket(url, { headers });
  const messages: M[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()) as M);
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`unexpected ${res.statusCode}`)));
  });
  return {
    ws,
    messages,
    closed,
    upTo: (n, ms = 5000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(messages.slice(0, n));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited for ${n} messages, got ${messages.length}: ${JSON.stringify(messages)}`));
        }, ms);
        waiters.add(check);
        check();
      }),
    close: () => ws.close(),
  };
}
