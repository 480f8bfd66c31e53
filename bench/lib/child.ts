// The servers under test run in their own process, so the load generator (autocannon, in the
// bench process) and the server each have an event loop and a core of this 2-core machine.
// A tiny request/reply protocol over the IPC channel drives them.
import { fork, type ChildProcess } from 'node:child_process';

type Handler = (args: any) => Promise<unknown> | unknown;

interface Call {
  id: number;
  op: string;
  args: unknown;
}

interface Answer {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

/** Parent side: a child process started from a .ts entry (tsx is inherited through execArgv). */
export class Child {
  private readonly proc: ChildProcess;
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly exited: Promise<number | null>;

  constructor(entry: string, env: Record<string, string> = {}) {
    this.proc = fork(entry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } });
    this.proc.on('message', (message: Answer) => {
      const w = this.waiting.get(message.id);
      if (w === undefined) return;
      this.waiting.delete(message.id);
      if (message.ok) w.resolve(message.result);
      else w.reject(new Error(message.error));
    });
    // A send to a child that has died emits 'error' as well as failing the call: the call's
    // rejection is the report; unhandled, the event would end the bench.
    this.proc.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => {
        for (const w of this.waiting.values()) w.reject(new Error(`${entry} exited with ${signal === null ? `code ${code}` : signal}`));
        this.waiting.clear();
        resolve(code);
      });
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  call<T>(op: string, args: unknown = {}): Promise<T> {
    const id = this.next++;
    if (!this.proc.connected) return Promise.reject(new Error(`${op}: the child process has gone`));
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.proc.send({ id, op, args } satisfies Call, (err) => {
        if (err === null || !this.waiting.delete(id)) return;
        reject(err);
      });
    });
  }

  /** Asks the child to close its server and exit; kills it if it does not within `timeoutMs` (dropping a 10M-command database takes a while). */
  async stop(timeoutMs = 20_000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), timeoutMs);
    try {
      await this.call('close').catch(() => undefined);
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Child side: answers calls with the handlers; `close` runs its handler, then exits. */
export function serve(handlers: Record<string, Handler>): void {
  process.on('message', async (message: Call) => {
    let answer: Answer;
    try {
      const handler = handlers[message.op];
      if (handler === undefined) throw new Error(`unknown op ${message.op}`);
      answer = { id: message.id, ok: true, result: await handler(message.args) };
    } catch (err) {
      answer = { id: message.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    process.send!(answer, () => {
      if (message.op === 'close') process.exit(0);
    });
  });
  // The parent going away (Ctrl-C, crash) takes the server with it.
  process.on('disconnect', () => process.exit(0));
}
