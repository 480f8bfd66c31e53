// One plugin's isolate (docs/plugins.md, "The runner process"): a worker thread of the runner
// child, started by child.ts for one plugin, holding that plugin's sandbox (QuickJS: every entry
// module in one runtime under one memory limit) on the backend the plugin names
// (sandbox/registry.ts). It serves one request at a time from the child's main thread, which
// ends the whole thread when a call runs past its deadline inside a built-in that never checks
// it: nothing of another plugin is in this thread. A binding a call asks for goes to the main
// thread (binding-request) and its answer comes back out of the request order.
import { parentPort, workerData } from 'node:worker_threads';
import { backendEntry, registerBackendModules, unknownBackend } from '../sandbox/registry.ts';
import type { BindingAnswer, BindingCaller, LoadedPlugin, SandboxBackend } from '../sandbox/types.ts';
import type { IsolateRequest, IsolateResponse } from './protocol.ts';

/** What the main thread gives an isolate when it starts it. */
export interface IsolateData {
  role: 'isolate';
  /** The backend the isolate's plugin runs on, and what the main thread prepared for it (QuickJS: its compiled WebAssembly). */
  backend: string;
  prepared: unknown;
  /** Backends registered beside the built-in ones (PluginRunnerOptions.backendModules: tests only). */
  backendModules: string[];
}

export function isIsolate(data: unknown): data is IsolateData {
  return typeof data === 'object' && data !== null && (data as IsolateData).role === 'isolate';
}

export function runIsolate(): void {
  const port = parentPort;
  if (port === null) return;
  const data = workerData as IsolateData;
  let plugin: LoadedPlugin | null = null;
  const send = (message: IsolateResponse) => port.postMessage(message);
  const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error');

  // The binding calls waiting for their answer, by this isolate's callId.
  const waiting = new Map<number, (answer: BindingAnswer) => void>();
  let nextCallId = 1;
  const bindings: BindingCaller = (binding, args) =>
    new Promise((resolve) => {
      const callId = nextCallId++;
      waiting.set(callId, resolve);
      send({ op: 'binding-request', callId, binding, args });
    });

  const backend: Promise<SandboxBackend> = (async () => {
    await registerBackendModules(data.backendModules);
    const entry = backendEntry(data.backend);
    if (entry === undefined) throw new Error(unknownBackend(data.backend));
    return entry.create(data.prepared);
  })();
  backend.catch(() => undefined); // the load reports it

  const serve = async (request: Exclude<IsolateRequest, { op: 'binding-response' }>): Promise<IsolateResponse> => {
    switch (request.op) {
      case 'load': {
        // An isolate loads one plugin once; a new version gets a new isolate.
        if (plugin !== null) return { op: 'failed', message: 'this isolate has loaded its plugin already' };
        let sandbox: SandboxBackend;
        try {
          sandbox = await backend;
        } catch (err) {
          return { op: 'loaded', ok: false, reasons: [err instanceof Error ? err.message : describe(err)] };
        }
        const { name, files, entries, limits } = request.plugin;
        const loaded = await sandbox.load(name, { files, entries }, limits, bindings);
        if (!loaded.ok) return { op: 'loaded', ok: false, reasons: loaded.reasons };
        plugin = loaded.plugin;
        return { op: 'loaded', ok: true, modules: plugin.handlers() };
      }
      case 'call':
        if (plugin === null) return { op: 'failed', message: 'no plugin is loaded in this isolate' };
        return { op: 'called', result: await plugin.call(request.entry, request.handler, request.event, request.secrets) };
      case 'memory':
        return { op: 'memory', bytes: plugin?.memoryBytes() ?? 0 };
    }
  };

  port.on('message', (request: IsolateRequest) => {
    if (request.op === 'binding-response') {
      const resolve = waiting.get(request.callId);
      waiting.delete(request.callId);
      resolve?.(request.answer);
      return;
    }
    void serve(request).then(send, (err: unknown) => send({ op: 'failed', message: describe(err) }));
  });
  send({ op: 'ready' });
}
