// The runner child process (docs/plugins.md, "The runner process"): one per charta-server
// process, forked by client.ts with an empty environment and an empty working directory of its
// own. It holds every loaded plugin's sandbox: one QuickJS instance per entry module of each
// plugin. It answers every request exactly once, even when the sandbox throws; requests on one
// plugin run in the order they came, so a call sent after a load sees the loaded plugin.
import fs from 'node:fs';
import path from 'node:path';
import { quickjsSandbox } from '../sandbox/quickjs.ts';
import type { CallResult, LoadedPlugin } from '../sandbox/types.ts';
import { WORK_DIR_PREFIX, type LoadAnswer, type PluginToLoad, type RunnerHandler, type RunnerRequest, type RunnerResponse } from './protocol.ts';

interface Loaded {
  modules: Map<string, LoadedPlugin>;
  handlers: RunnerHandler[];
}

const plugins = new Map<string, Loaded>();
/** The tail of each plugin's queue of requests. */
const queues = new Map<string, Promise<void>>();

function send(message: RunnerResponse): void {
  process.send?.(message);
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error';
}

/** Loads every module of the plugin in fresh runtimes: all of them, or none (the loaded ones disposed) with every reason. */
async function loadModules(plugin: PluginToLoad): Promise<{ ok: true; loaded: Loaded } | { ok: false; reasons: string[] }> {
  const modules = new Map<string, LoadedPlugin>();
  const handlers: RunnerHandler[] = [];
  const reasons: string[] = [];
  if (plugin.modules.length === 0) reasons.push('the plugin has no handler module');
  for (const { entry, source } of plugin.modules) {
    let result;
    try {
      result = await quickjsSandbox.load(`${plugin.name}/${entry}`, source, plugin.limits);
    } catch (err) {
      result = { ok: false as const, reasons: [`the sandbox failed: ${describe(err)}`] };
    }
    if (!result.ok) {
      reasons.push(...result.reasons.map((reason) => `${entry}: ${reason}`));
      continue;
    }
    modules.set(entry, result.plugin);
    for (const h of result.plugin.handlers()) handlers.push({ entry, name: h.name, respondsTo: h.respondsTo });
  }
  if (reasons.length) {
    disposeAll(modules);
    return { ok: false, reasons };
  }
  return { ok: true, loaded: { modules, handlers } };
}

function disposeAll(modules: Map<string, LoadedPlugin>): void {
  for (const module of modules.values()) {
    try {
      module.dispose();
    } catch {
      // a runtime that cannot be freed is dropped with its WebAssembly instance
    }
  }
}

/** A failed load leaves the version already loaded (if any) in place. */
async function load(plugin: PluginToLoad): Promise<LoadAnswer> {
  const result = await loadModules(plugin);
  if (!result.ok) return result;
  const previous = plugins.get(plugin.name);
  plugins.set(plugin.name, result.loaded);
  if (previous) disposeAll(previous.modules);
  return { ok: true, handlers: result.loaded.handlers };
}

async function check(plugin: PluginToLoad): Promise<LoadAnswer> {
  const result = await loadModules(plugin);
  if (!result.ok) return result;
  disposeAll(result.loaded.modules);
  return { ok: true, handlers: result.loaded.handlers };
}

function unavailable(message: string): CallResult {
  return { outcome: { kind: 'unavailable', message }, logs: [], droppedLogLines: 0, reloaded: false };
}

async function call(request: Extract<RunnerRequest, { op: 'call' }>): Promise<CallResult> {
  const loaded = plugins.get(request.name);
  if (!loaded) return unavailable(`the plugin ${request.name} is not loaded`);
  const module = loaded.modules.get(request.entry);
  if (!module) return { outcome: { kind: 'no-such-handler', handler: `${request.entry}:${request.handler}` }, logs: [], droppedLogLines: 0, reloaded: false };
  return module.call(request.handler, request.event, request.secrets);
}

async function serve(request: RunnerRequest): Promise<RunnerResponse> {
  switch (request.op) {
    case 'load':
      return { id: request.id, op: 'loaded', answer: await load(request.plugin) };
    case 'check':
      return { id: request.id, op: 'loaded', answer: await check(request.plugin) };
    case 'unload': {
      const loaded = plugins.get(request.name);
      plugins.delete(request.name);
      if (loaded) disposeAll(loaded.modules);
      return { id: request.id, op: 'unloaded' };
    }
    case 'call':
      return { id: request.id, op: 'called', result: await call(request) };
  }
}

/** Which queue a request waits in: its plugin's, or (a check) one of its own. */
function queueKey(request: RunnerRequest): string | null {
  if (request.op === 'check') return null;
  return request.op === 'load' ? request.plugin.name : request.name;
}

function receive(message: unknown): void {
  const request = message as RunnerRequest;
  if (typeof request !== 'object' || request === null || typeof request.id !== 'number') return;
  const run = async (): Promise<void> => {
    send({ id: request.id, op: 'begin' });
    let response: RunnerResponse;
    try {
      response = await serve(request);
    } catch (err) {
      response = { id: request.id, op: 'failed', message: describe(err) };
    }
    send(response);
  };
  const key = queueKey(request);
  if (key === null) {
    void run();
    return;
  }
  const next = (queues.get(key) ?? Promise.resolve()).then(run);
  queues.set(key, next);
  void next.then(() => {
    if (queues.get(key) === next) queues.delete(key);
  });
}

process.on('message', receive);
// The host is gone (or closed the channel): nothing is left to serve. A host that was killed
// cannot remove the working directory it made for this process, so the child removes it, only
// if it is still empty (rmdir refuses anything else) and has the name the host gives it.
process.on('disconnect', () => {
  const cwd = process.cwd();
  if (path.basename(cwd).startsWith(WORK_DIR_PREFIX)) {
    try {
      fs.rmdirSync(cwd);
    } catch {
      // not empty, or already gone
    }
  }
  process.exit(0);
});
