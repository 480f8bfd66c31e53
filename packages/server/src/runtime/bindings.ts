// Host bindings (docs/plugins.md, "Bindings"): what a plugin's handler may ask the server for
// during a call, by name: `__charta_binding(name, args)` in the sandbox, a binding-request through
// the runner (runner/protocol.ts), served here in the server process. runtime/index.ts registers
// `data` (data-reads.ts), `cache` (cache-database.ts) and `signature` (signature.ts, for a
// route's handler). Plugin code is hostile: every request is
// checked again here (name, size of the arguments), the binding runs under the call's deadline,
// its answer must be JSON within the size limit, and a failure reaches the plugin as a message
// only (never a stack or a value of the server's).
import type { BindingAnswer, JsonValue } from './sandbox/types.ts';
import type { CallContext } from './calls.ts';

/**
 * A binding: the plugin whose call asks (its name, as the runner knows it), the JSON arguments,
 * and the handler call that asks (its handler, event and budgets; undefined when the runner could
 * not tell which call it is) → a JSON answer.
 */
export type Binding = (plugin: string, args: JsonValue, call: CallContext | undefined) => Promise<JsonValue> | JsonValue;

/** Longest text of a failure's message handed to the plugin. */
const ERROR_CHARS = 1000;

const NAME = /^[a-z][a-z0-9._-]{0,63}$/;

/** What the deadline answers in the race with a binding: nothing a binding can return. */
const LATE: unique symbol = Symbol('late');

export class Bindings {
  private readonly table = new Map<string, Binding>();

  /** Adds a binding; a name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting with a letter. */
  register(name: string, binding: Binding): void {
    if (!NAME.test(name)) throw new Error(`a binding name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting with a letter: ${name}`);
    if (this.table.has(name)) throw new Error(`the binding ${name} is registered already`);
    this.table.set(name, binding);
  }

  names(): string[] {
    return [...this.table.keys()];
  }

  /**
   * Serves one binding request of a call of `plugin`: the answer, or why it failed. `deadlineMs`:
   * the call's deadline (the sandbox gives up on the answer then; so does this); `maxChars`: the
   * longest JSON of the arguments and of the answer.
   */
  async serve(plugin: string, binding: unknown, args: unknown, limits: { deadlineMs: number; maxChars: number }, call?: CallContext): Promise<BindingAnswer> {
    if (typeof binding !== 'string' || !NAME.test(binding)) return { ok: false, error: 'a binding name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-"' };
    const run = this.table.get(binding);
    if (run === undefined) return { ok: false, error: `no binding named ${binding} is available` };
    const argsJson = jsonOf(args);
    if (argsJson === undefined) return { ok: false, error: `the arguments of binding ${binding} are not JSON` };
    if (argsJson.length > limits.maxChars)
      return { ok: false, error: `the arguments of binding ${binding} are longer than ${limits.maxChars} characters of JSON (the limit)` };
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), limits.deadlineMs)));
      // Its own copy of the arguments: nothing the binding does to them reaches anything else.
      const value = await Promise.race([Promise.resolve().then(() => run(plugin, JSON.parse(argsJson) as JsonValue, call)), late]);
      if (value === LATE) return { ok: false, error: `binding ${binding} did not answer within ${limits.deadlineMs} ms` };
      const json = jsonOf(value === undefined ? null : value);
      if (json === undefined) return { ok: false, error: `binding ${binding} answered a value that is not JSON` };
      if (json.length > limits.maxChars)
        return { ok: false, error: `the answer of binding ${binding} is longer than ${limits.maxChars} characters of JSON (the limit)` };
      return { ok: true, value: JSON.parse(json) as JsonValue };
    } catch (err) {
      // The message only: a stack (or any other property) of the server's never reaches the plugin.
      const message = err instanceof Error && typeof err.message === 'string' ? err.message : `binding ${binding} failed`;
      return { ok: false, error: message.slice(0, ERROR_CHARS) };
    } finally {
      clearTimeout(timer);
    }
  }
}

function jsonOf(value: unknown): string | undefined {
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}
