// A sandbox backend for tests only (runner.test.ts), proving that a backend is one file and one
// registry entry (docs/architecture.md, "Plugin runtime"): this file is the whole backend, and
// PluginRunnerOptions.backendModules is its registry entry (sandbox/registry.ts registers the
// `name` and `backend` it exports). Plain JavaScript: the runner child runs without a TypeScript
// loader. Each entry file is JSON, `{ "<HandlerName>": ["<EVENT>", ...] }`; a call answers one
// effect echoing what it was given, or, when the event names a binding, that binding's answer.

/** @type {string} */
export const name = 'echo';

/** @type {import('../../src/runtime/sandbox/types.ts').BackendEntry<string>} */
export const backend = {
  prepare: async () => 'prepared in the main thread',
  create: (prepared) => ({
    async load(plugin, code, _limits, bindings) {
      const modules = [];
      const reasons = [];
      for (const entry of code.entries) {
        try {
          const declared = JSON.parse(code.files[entry]);
          modules.push({ entry, handlers: Object.entries(declared).map(([handler, respondsTo]) => ({ name: handler, respondsTo })) });
        } catch (err) {
          reasons.push(`${entry}: ${err.message}`);
        }
      }
      if (reasons.length > 0) return { ok: false, reasons };
      const result = (outcome) => ({ outcome, logs: [], droppedLogLines: 0, reloaded: false });
      return {
        ok: true,
        plugin: {
          name: plugin,
          handlers: () => modules,
          async call(entry, handler, event, secrets) {
            const module = modules.find((m) => m.entry === entry);
            if (!module?.handlers.some((h) => h.name === handler)) return result({ kind: 'no-such-handler', handler: `${entry}:${handler}` });
            if (typeof event.binding === 'string') {
              const answer = await bindings(event.binding, event.args ?? null);
              return result({ kind: 'ok', effects: [{ type: 'BINDING', answer }] });
            }
            return result({ kind: 'ok', effects: [{ type: 'ECHO', backend: 'echo', prepared, plugin, entry, handler, event, secrets }] });
          },
          memoryBytes: () => 0,
          dispose: () => undefined,
        },
      };
    },
  }),
};
