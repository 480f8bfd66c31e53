// One plugin's isolate (docs/plugins.md, "The runner process"): a worker thread of the runner
// child, started by child.ts for one plugin, holding that plugin's QuickJS instance (every entry
// module in one runtime under one memory limit). It serves one request at a time from the
// child's main thread, which ends the whole thread when a call runs past its deadline inside a
// built-in that never checks it: nothing of another plugin is in this thread.
import { parentPort, workerData } from 'node:worker_threads';
import { quickjsSandbox, useCompiledQuickJS } from '../sandbox/quickjs.ts';
import type { LoadedPlugin } from '../sandbox/types.ts';
import type { IsolateRequest, IsolateResponse } from './protocol.ts';

/** What the main thread gives an isolate when it starts it. */
export interface IsolateData {
  role: 'isolate';
  /** QuickJS's WebAssembly module, compiled once by the main thread. */
  wasm: WebAssembly.Module;
}

export function isIsolate(data: unknown): data is IsolateData {
  return typeof data === 'object' && data !== null && (data as IsolateData).role === 'isolate';
}

export function runIsolate(): void {
  const port = parentPort;
  if (port === null) return;
  useCompiledQuickJS((workerData as IsolateData).wasm);
  let plugin: LoadedPlugin | null = null;
  const send = (message: IsolateResponse) => port.postMessage(message);

  const serve = async (request: IsolateRequest): Promise<IsolateResponse> => {
    switch (request.op) {
      case 'load': {
        // An isolate loads one plugin once; a new version gets a new isolate.
        if (plugin !== null) return { op: 'failed', message: 'this isolate has loaded its plugin already' };
        const loaded = await quickjsSandbox.load(request.plugin.name, request.plugin.modules, request.plugin.limits);
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
    void serve(request).then(send, (err: unknown) => send({ op: 'failed', message: err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error' }));
  });
  send({ op: 'ready' });
}
