// The script the QuickJS backend evaluates in each plugin's context before the plugin's module
// (docs/plugins.md, "The sandbox"). It removes what a plugin must not have, freezes the built-in
// objects so that nothing a plugin does to them reaches the next call, and returns the three
// functions the host calls: bind (the module's namespace → its handler classes), invoke (one
// handler, one event, as the SDK's runHandler does) and nothing else. The host's functions
// inside, `hostLog` and `hostBinding`, stay in this closure; a plugin sees a frozen logger that
// wraps the first, and a frozen global, __charta_binding, a frozen `data` reader (the handler's
// fourth argument, this.data) and a frozen `cache` (its fifth, this.cache) that wrap the second.
// Every value the host reads back is a string or a frozen record of strings made here.
import { REFERENCE_CATALOGUE_NAMES } from '@charta/api/constants';

export const BOOTSTRAP_SOURCE = String.raw`(function (hostLog, limitsJson, hostBinding) {
  'use strict';
  const limits = JSON.parse(limitsJson);
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const defineProperty = Object.defineProperty;
  const toText = String;
  const slice = Function.prototype.call.bind(String.prototype.slice);
  const includes = Function.prototype.call.bind(Array.prototype.includes);

  for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']) {
    delete globalThis[name];
  }

  // QuickJS's own String.prototype.repeat appends the string once per repetition and goes on
  // after an allocation failed, collecting garbage each time and never checking the deadline: a
  // repeat that runs out of memory half-way took seconds to minutes. This one doubles the piece
  // (a few concatenations, kept as ropes until the string is read, when running out of memory
  // fails at once), as the specification asks otherwise.
  const trunc = Math.trunc;
  const floor = Math.floor;
  const MAX_STRING_LENGTH = 2 ** 30 - 1;
  defineProperty(String.prototype, 'repeat', {
    value: {
      repeat(count) {
        if (this === undefined || this === null) throw new TypeError('String.prototype.repeat called on null or undefined');
        const piece0 = toText(this);
        let n = +count;
        n = n !== n ? 0 : trunc(n);
        if (n < 0 || n === Infinity) throw new RangeError('invalid repeat count');
        if (n === 0 || piece0.length === 0) return '';
        if (piece0.length * n > MAX_STRING_LENGTH) throw new RangeError('invalid string length');
        let result = '';
        let piece = piece0;
        for (;;) {
          if (n % 2 === 1) result += piece;
          n = floor(n / 2);
          if (n === 0) return result;
          piece += piece;
        }
      },
    }.repeat,
    writable: true,
    enumerable: false,
    configurable: true,
  });

  // Assigning to a property that a frozen prototype holds would throw (the "override mistake"):
  // these common ones become accessors whose setter defines the property on the object itself,
  // so that this.name = 'MyError' in an Error subclass keeps working.
  const overridable = ['constructor', 'name', 'message', 'stack', 'toString', 'toLocaleString', 'valueOf', 'toJSON', 'then'];
  const tame = (object) => {
    for (const key of overridable) {
      const d = Reflect.getOwnPropertyDescriptor(object, key);
      if (d === undefined || !('value' in d) || !d.writable || !d.configurable) continue;
      const value = d.value;
      defineProperty(object, key, {
        get() { return value; },
        set(next) {
          if (this === object) throw new TypeError('Cannot assign to read only property ' + toText(key) + ' of a built-in object');
          defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
        },
        enumerable: d.enumerable,
        configurable: false,
      });
    }
  };
  // The one way to the server (docs/plugins.md, "Bindings"): __charta_binding(name, args) returns
  // a promise of the binding's JSON answer. The host checks every call (only inside a handler
  // call, the name, the size of the arguments); this wrapper only turns the arguments into JSON.
  const TypeErrorOf = TypeError;
  defineProperty(globalThis, '__charta_binding', {
    value: async function __charta_binding(name, args) {
      let json;
      try {
        json = stringify(args === undefined ? null : args);
      } catch (e) {
        throw new TypeErrorOf('the arguments of a binding must be JSON');
      }
      if (typeof json !== 'string') throw new TypeErrorOf('the arguments of a binding must be JSON');
      return parse(await hostBinding(name, json));
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });

  // this.data (docs/plugins.md, "Reading the record"): each read is the 'data' binding; a refusal
  // (out of scope, over budget, bad arguments…) rejects with a DataError whose code says which.
  const ErrorOf = Error;
  class DataError extends ErrorOf {
    constructor(code, message, errors) {
      super(message);
      defineProperty(this, 'name', { value: 'DataError', writable: true, enumerable: false, configurable: true });
      defineProperty(this, 'code', { value: code, writable: false, enumerable: true, configurable: false });
      if (isArray(errors)) defineProperty(this, 'errors', { value: errors, writable: false, enumerable: true, configurable: false });
    }
  }
  // A binding whose answer is {value} or {error: {code, message, errors?}}: the value, or a DataError.
  const ask = async (binding, request) => {
    let json;
    try {
      json = stringify(request);
    } catch (e) {
      throw new TypeErrorOf('the arguments of a ' + binding + ' call must be JSON');
    }
    if (typeof json !== 'string') throw new TypeErrorOf('the arguments of a ' + binding + ' call must be JSON');
    const answer = parse(await hostBinding(binding, json));
    if (answer !== null && typeof answer === 'object' && answer.error !== undefined) {
      const error = answer.error;
      throw new DataError(toText(error.code), toText(error.message), error.errors);
    }
    return answer.value;
  };
  const read = (resource, op, args) => {
    const request = { resource, op };
    for (const key of keys(args)) request[key] = args[key];
    return ask('data', request);
  };
  const data = {
    patients: { get: (key) => read('patients', 'get', { key }), metadata: (key, page) => read('patients', 'metadata', { key, page }) },
    notes: { get: (uuid) => read('notes', 'get', { uuid }), list: (query) => read('notes', 'list', { query }) },
    commands: { get: (uuid) => read('commands', 'get', { uuid }), list: (query) => read('commands', 'list', { query }) },
    chart: { get: (patientKey) => read('chart', 'get', { patient_key: patientKey }) },
    terminology: {
      lookup: (system, code) => read('terminology', 'lookup', { system, code }),
      search: (systems, term, options) => read('terminology', 'search', { systems, term, limit: options === undefined || options === null ? undefined : options.limit }),
    },
    reference: {},
  };
  for (const catalogue of ${JSON.stringify(REFERENCE_CATALOGUE_NAMES)}) {
    data.reference[catalogue] = {
      list: (query) => read('reference', 'list', { catalogue, query }),
      get: (id) => read('reference', 'get', { catalogue, id }),
    };
  }

  // this.cache (docs/plugins.md, "Cache"): the 'cache' binding.
  const cache = {
    get: (key) => ask('cache', { op: 'get', key }),
    set: async (key, value, options) => {
      const ttl = options !== undefined && options !== null ? options.ttl : undefined;
      await ask('cache', ttl === undefined ? { op: 'set', key, value } : { op: 'set', key, value, ttl });
    },
    delete: (key) => ask('cache', { op: 'delete', key }),
  };

  const seen = new WeakSet();
  const deepFreeze = (value) => {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
    seen.add(value);
    tame(value);
    freeze(value);
    deepFreeze(Object.getPrototypeOf(value));
    for (const key of Reflect.ownKeys(value)) {
      const d = Reflect.getOwnPropertyDescriptor(value, key);
      if (d === undefined) continue;
      deepFreeze(d.value);
      deepFreeze(d.get);
      deepFreeze(d.set);
    }
  };
  for (const key of Reflect.ownKeys(globalThis)) {
    if (key === 'globalThis') continue;
    deepFreeze(Reflect.getOwnPropertyDescriptor(globalThis, key).value);
  }

  deepFreeze(DataError);
  deepFreeze(data);
  deepFreeze(cache);

  const cut = (text, max) => (text.length > max ? slice(text, 0, max + 1) : text);
  const emit = (level) => (message) => {
    let text;
    try {
      text = typeof message === 'string' ? message : toText(message);
    } catch (e) {
      text = '[a message that cannot be turned into text]';
    }
    hostLog(level, cut(text, limits.logMessageChars));
  };
  const logger = freeze({ debug: emit('debug'), info: emit('info'), warning: emit('warning'), error: emit('error') });

  const describe = (kind, e) => {
    let name = 'Error';
    let message;
    try {
      if ((typeof e === 'object' && e !== null) || typeof e === 'function') {
        const n = e.name;
        if (typeof n === 'string') name = n;
        const m = e.message;
        message = typeof m === 'string' ? m : toText(m);
      } else {
        message = toText(e);
      }
    } catch (_) {
      message = 'a value that cannot be described was thrown';
    }
    return freeze({ kind, name: cut(name, 200), message: cut(message, limits.logMessageChars) });
  };

  const handlers = new Map();

  const bind = (namespace) => {
    const found = [];
    for (const name of keys(namespace)) {
      const value = namespace[name];
      if (typeof value !== 'function' || !isArray(value.RESPONDS_TO)) continue;
      const proto = value.prototype;
      if (proto === null || typeof proto !== 'object' || typeof proto.compute !== 'function') continue;
      handlers.set(name, value);
      const respondsTo = [];
      for (const event of value.RESPONDS_TO) if (typeof event === 'string') respondsTo.push(event);
      // ROUTES and SCHEDULE (docs/plugins.md, "HTTP routes", "Scheduled tasks") go to the host as
      // text it parses and checks itself: JSON of the declared routes, cut at 64 KiB, and the
      // schedule's string, cut at 200 characters.
      const info = { name, respondsTo };
      if (value.ROUTES !== undefined) {
        let routes;
        try {
          routes = stringify(value.ROUTES);
        } catch (e) {
          routes = undefined;
        }
        info.routes = typeof routes === 'string' ? cut(routes, 65536) : '"not JSON"';
      }
      if (value.SCHEDULE !== undefined) info.schedule = typeof value.SCHEDULE === 'string' ? cut(value.SCHEDULE, 200) : '';
      found.push(info);
    }
    return stringify(found);
  };

  const run = async (name, eventJson, secretsJson) => {
    const Handler = handlers.get(name);
    const event = parse(eventJson);
    const secrets = freeze(parse(secretsJson));
    if (!isArray(Handler.RESPONDS_TO) || !includes(Handler.RESPONDS_TO, event.type)) return '[]';
    const handler = new Handler(event, secrets, logger, data, cache);
    if (!handler.acceptEvent()) return '[]';
    const effects = (await handler.compute()) ?? [];
    if (!isArray(effects)) return describe('invalid-result', { name: 'TypeError', message: 'compute() must return a list of effects' });
    let json;
    try {
      json = stringify(effects);
    } catch (e) {
      return describe('invalid-result', e);
    }
    if (typeof json !== 'string') return describe('invalid-result', { name: 'TypeError', message: 'the effects are not JSON' });
    if (json.length > limits.resultChars) {
      return describe('invalid-result', { name: 'RangeError', message: 'the effects are longer than ' + limits.resultChars + ' characters of JSON' });
    }
    return json;
  };

  const invoke = async (name, eventJson, secretsJson) => {
    try {
      return await run(name, eventJson, secretsJson);
    } catch (e) {
      return describe('threw', e);
    }
  };

  return freeze({ bind, invoke, describe: (e) => describe('threw', e) });
})`;
