// JavaScript evaluated inside each fresh isolate before the formula's code: the CommonJS shell the code runs in.

/**
 * The formula is wrapped as Node wraps a CommonJS file, so `module`, `exports`, `require` and a top-level `return`
 * work. Keep it on one line: user line numbers stay right, and only line-1 columns need the prefix subtracted.
 */
export const COMMONJS_PREFIX = '(function (module, exports, require) {';
export const COMMONJS_SUFFIX = '\n})';

/** Name given to the compiled code, so its frames are told apart from the prelude's in messages and stacks. */
export const FORMULA_FILENAME = 'formula.js';

/** How deep `raw` and `tokenize` may nest. */
export const MAX_RESULT_DEPTH = 100;

/** What the prelude is set up with, as JSON. */
export interface PreludeSettings {
  /**
   * `stub` (the code check): `require` returns one inert stub for every module name and loads nothing. The check only
   * asks what the code exports, and formula code routinely does `const api = require('axios').create(…)` at top level.
   * `unavailable` (reactor runs): `require` throws, since no module would really work.
   */
  modules: 'stub' | 'unavailable';
  /**
   * Bounds on the code's fetches, enforced before anything leaves the isolate (each request is copied out to the host,
   * outside the isolate's memory limit): fetches not settled yet, fetches of the whole run, and length of a request
   * (URL, headers, body) as JSON.
   */
  fetch?: { maxPending: number; maxPerRun: number; maxRequestChars: number };
}

/**
 * The prelude's value is a function of `(settingsJson, hostFetch)` returning `{ load, invoke, react }`, which the host
 * calls by reference; nothing is put on the global object but Node-like conveniences, so the formula cannot reach
 * our plumbing by name.
 *
 * - `hostFetch`, when given, is a reference to the host's fetch (see sandbox-fetch.ts): the global `fetch` sends it
 *   the request as JSON and builds the code's response from its JSON answer. Without it there is no `fetch`.
 * - `console` is a no-op, since logging is common and nothing of the code's may reach our logs.
 * - Intrinsics are captured before the formula runs, and outcomes are built on null prototypes and copied by index:
 *   code that replaces `JSON`, `Array.prototype.push` or `Object.prototype.toJSON` only spoils its own result.
 * - Outcomes leave the isolate as JSON strings, so no object of the formula's ever crosses to the host; the host
 *   still checks each (type, size) rather than trusting it.
 */
export const SANDBOX_PRELUDE = `((settingsJson, hostFetch) => {
  'use strict';
  const settings = JSON.parse(settingsJson);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toText = String;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const apply = Reflect.apply;
  const keys = Object.keys;
  const create = Object.create;
  const freeze = Object.freeze;
  const getPrototypeOf = Object.getPrototypeOf;
  const setPrototypeOf = Object.setPrototypeOf;
  const isArray = Array.isArray;
  const isFiniteNumber = Number.isFinite;
  const ObjectPrototype = Object.prototype;
  const objectToString = Object.prototype.toString;
  const sliceText = String.prototype.slice;
  const lowerCase = String.prototype.toLowerCase;
  const functionSource = Function.prototype.toString;
  const GeneratorFunctionPrototype = getPrototypeOf(function* () {});
  const AsyncGeneratorFunctionPrototype = getPrototypeOf(async function* () {});
  const clip = (text, max) => (text.length > max ? apply(sliceText, text, [0, max]) : text);

  const stub = new Proxy(function requiredModule() {}, {
    get: (_target, property) =>
      property === 'then' ? undefined : property === Symbol.toPrimitive ? () => '' : stub,
    apply: () => stub,
    construct: () => stub,
  });
  const require = settings.modules === 'stub'
    ? () => stub
    : () => {
        throw new ErrorType('require is not available: reactor code runs without Node.js modules (use the global fetch for HTTP).');
      };
  const ignore = () => undefined;
  globalThis.global = globalThis;
  globalThis.console = { log: ignore, info: ignore, warn: ignore, error: ignore, debug: ignore, trace: ignore };
  // WebAssembly memory is allocated outside the heap isolated-vm limits, and one built-in call over it (a sort, a fill)
  // outlasts the wall-time limit: a security review grew the API past 4 GB and a 2 s run to 16 s. Formula code gets
  // none of it (the global is the only way to the namespace). (SharedArrayBuffer stays: its memory goes through the
  // same limited allocator as ArrayBuffer's, and Atomics.wait on it is stopped at the wall-time limit.)
  delete globalThis.WebAssembly;

  const describe = (thrown) => {
    try {
      if (thrown instanceof ErrorType) {
        return {
          __proto__: null,
          error: clip(toText(thrown.name) + ': ' + toText(thrown.message), 2000),
          stack: clip(toText(thrown.stack), 4000),
        };
      }
      const text = typeof thrown === 'string' ? thrown : stringify(thrown);
      return { __proto__: null, error: clip(toText(text), 2000) };
    } catch {
      return { __proto__: null, error: 'a value that cannot be described' };
    }
  };
  const threw = (thrown) => stringify({ __proto__: null, outcome: 'threw', ...describe(thrown) });

  if (hostFetch !== undefined) {
    const { maxPending, maxPerRun, maxRequestChars } = settings.fetch;
    let pending = 0;
    let sent = 0;
    const callHost = async (requestJson) => {
      if (requestJson.length > maxRequestChars) {
        throw new TypeErrorType('fetch: the request (URL, headers and body) is larger than ' + maxRequestChars + ' bytes.');
      }
      if (pending >= maxPending) throw new TypeErrorType('fetch: at most ' + maxPending + ' fetches may be under way at once.');
      if (sent >= maxPerRun) throw new TypeErrorType('fetch: at most ' + maxPerRun + ' fetches per invocation.');
      sent++;
      pending++;
      try {
        return await hostFetch.apply(undefined, [requestJson], { __proto__: null, result: { __proto__: null, promise: true } });
      } finally {
        pending--;
      }
    };
    const lower = (name) => apply(lowerCase, toText(name), []);
    const responseOf = (answer) => {
      const table = create(null);
      const pairs = answer.headers;
      for (let i = 0; i < pairs.length; i++) {
        const name = pairs[i][0];
        table[name] = table[name] === undefined ? pairs[i][1] : table[name] + ', ' + pairs[i][1];
      }
      const body = answer.body;
      const headers = freeze({
        get: (name) => (table[lower(name)] === undefined ? null : table[lower(name)]),
        has: (name) => table[lower(name)] !== undefined,
        entries: () => {
          const names = keys(table);
          const entries = [];
          for (let i = 0; i < names.length; i++) entries[i] = [names[i], table[names[i]]];
          return entries;
        },
      });
      return freeze({
        status: answer.status,
        ok: answer.status >= 200 && answer.status <= 299,
        url: answer.url,
        headers,
        text: async () => body,
        json: async () => parse(body),
      });
    };
    const fetch = async function fetch(resource, init) {
      const request = { __proto__: null, url: typeof resource === 'string' ? resource : toText(resource) };
      if (init !== undefined && init !== null) {
        if (typeof init !== 'object') throw new TypeErrorType('fetch: the second argument must be an object { method, headers, body }.');
        if (init.method !== undefined) request.method = toText(init.method);
        const headers = init.headers;
        if (headers !== undefined && headers !== null) {
          if (typeof headers !== 'object' || isArray(headers)) throw new TypeErrorType('fetch: headers must be an object of names to strings.');
          request.headers = create(null);
          const names = keys(headers);
          for (let i = 0; i < names.length; i++) request.headers[names[i]] = toText(headers[names[i]]);
        }
        if (init.body !== undefined && init.body !== null) {
          if (typeof init.body !== 'string') throw new TypeErrorType('fetch: the body must be a string (use JSON.stringify).');
          request.body = init.body;
        }
      }
      const answer = parse(await callHost(stringify(request)));
      if (answer.error !== null) throw new TypeErrorType(answer.error);
      return responseOf(answer.response);
    };
    globalThis.fetch = fetch;
  }

  // raw and tokenize: copied into null-prototype objects and arrays (no toJSON of the code's can run when they are
  // stringified), refusing whatever JSON.stringify would silently change or drop.
  const NOT_JSON = freeze(create(null));
  let problem = '';
  const fail = (message) => {
    problem = message;
    throw NOT_JSON;
  };
  const kindOf = (value) => {
    if (value === undefined || value === null || typeof value === 'number') return toText(value);
    if (typeof value === 'function') return 'a function';
    if (typeof value !== 'object') return 'a ' + typeof value;
    if (isArray(value)) return 'an array';
    const tag = apply(sliceText, apply(objectToString, value, []), [8, -1]);
    if (tag === 'Object') return 'an instance of a class';
    const initial = apply(lowerCase, apply(sliceText, tag, [0, 1]), []);
    const vowel = initial === 'a' || initial === 'e' || initial === 'i' || initial === 'o' || initial === 'u';
    return (vowel ? 'an ' : 'a ') + clip(tag, 40);
  };
  // Only a plain object (or one without a prototype) is SPEC's response object, and SPEC's raw.
  const isPlainObject = (value) => {
    if (value === null || typeof value !== 'object' || isArray(value)) return false;
    const prototype = getPrototypeOf(value);
    return prototype === ObjectPrototype || prototype === null;
  };
  const isIdentifier = (name) => {
    if (name.length === 0 || name.length > 60) return false;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
      if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
    }
    return true;
  };
  const member = (path, name) => clip(path + (isIdentifier(name) ? '.' + name : '[' + stringify(clip(name, 60)) + ']'), 300);
  const ancestors = [];
  const copy = (value, path, depth) => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return isFiniteNumber(value) ? value : fail(path + ' is ' + toText(value) + ', which is not JSON.');
    if (typeof value !== 'object') return fail(path + ' is ' + kindOf(value) + ', which is not JSON.');
    if (depth >= ${MAX_RESULT_DEPTH}) return fail(path + ' nests more than ${MAX_RESULT_DEPTH} levels deep.');
    for (let i = 0; i < depth; i++) if (ancestors[i] === value) return fail(path + ' contains itself (a cycle), which is not JSON.');
    ancestors[depth] = value;
    if (isArray(value)) {
      const out = setPrototypeOf([], null);
      const length = value.length;
      for (let i = 0; i < length; i++) out[i] = copy(value[i], clip(path + '[' + i + ']', 300), depth + 1);
      return out;
    }
    const prototype = getPrototypeOf(value);
    if (prototype !== ObjectPrototype && prototype !== null) {
      return fail(path + ' is ' + kindOf(value) + ', which is not JSON (only plain objects and arrays are).');
    }
    const out = create(null);
    const names = keys(value);
    for (let i = 0; i < names.length; i++) {
      const item = value[names[i]];
      if (item !== undefined) out[names[i]] = copy(item, member(path, names[i]), depth + 1);
    }
    return out;
  };
  const jsonOf = (value, name, maxChars) => {
    if (value === undefined || value === null) return null;
    // SPEC: raw is an object; one of a class is refused by copy, as anywhere inside. (tokenize may be whatever
    // POST /tokenize takes: the API judges it as such.)
    if (name === 'raw' && (typeof value !== 'object' || isArray(value))) {
      return fail('raw is ' + kindOf(value) + ', not an object: return raw as an object of JSON values, such as { result: … }.');
    }
    const text = stringify(copy(value, name, 0));
    // A UTF-16 code unit is at least one UTF-8 byte: past maxChars units, the text is past maxChars bytes too.
    return text.length > maxChars ? fail(name + ' is larger than ' + maxChars + ' bytes as JSON.') : text;
  };

  // What the code exported, telling apart the functions that cannot serve as SPEC's async function: a class throws
  // when called without new, and a generator function returns an iterator, never a promise of the response.
  const exportedKind = (value) => {
    if (value === stub) return 'required-module';
    if (value === null) return 'null';
    if (typeof value !== 'function') return typeof value;
    const prototype = getPrototypeOf(value);
    if (prototype === AsyncGeneratorFunctionPrototype) return 'async generator function';
    if (prototype === GeneratorFunctionPrototype) return 'generator function';
    // A class's source text starts with the keyword (an arrow's parameter cannot be named class).
    const source = apply(functionSource, value, []);
    const next = apply(sliceText, source, [5, 6]);
    const afterKeyword = next === ' ' || next === '{' || next === '/' || next === '\\t' || next === '\\n' || next === '\\r';
    return apply(sliceText, source, [0, 5]) === 'class' && afterKeyword ? 'class' : 'function';
  };

  let module = { exports: {} };
  return {
    load(factory) {
      module = { exports: {} };
      try {
        factory.call(module.exports, module, module.exports, require);
      } catch (thrown) {
        return threw(thrown);
      }
      let exported;
      try {
        exported = exportedKind(module.exports);
      } catch (thrown) {
        // A proxy's trap of the code's that threw.
        return threw(thrown);
      }
      return stringify({ __proto__: null, outcome: 'loaded', exported });
    },
    async invoke(requestJson) {
      try {
        const response = await module.exports(parse(requestJson));
        return stringify({ __proto__: null, outcome: 'returned', response: response === undefined ? null : response });
      } catch (thrown) {
        return threw(thrown);
      }
    },
    // SPEC's contract: the function returns { raw, tokenize }, each optional; answers each as JSON text, or null.
    async react(requestJson, maxChars) {
      let raw;
      let tokenize;
      try {
        const response = await module.exports(parse(requestJson));
        if (response !== undefined && response !== null) {
          if (!isPlainObject(response)) {
            return stringify({
              __proto__: null,
              outcome: 'rejected',
              problem: 'The formula must return an object { raw, tokenize } or nothing, not ' + kindOf(response) + '.',
            });
          }
          raw = response.raw;
          tokenize = response.tokenize;
        }
      } catch (thrown) {
        return threw(thrown);
      }
      try {
        const rawJson = jsonOf(raw, 'raw', maxChars);
        const tokenizeJson = jsonOf(tokenize, 'tokenize', maxChars);
        return stringify({ __proto__: null, outcome: 'reacted', raw: rawJson, tokenize: tokenizeJson });
      } catch (thrown) {
        // Anything else came from the code itself: a getter or a proxy trap of the response that threw.
        if (thrown === NOT_JSON) return stringify({ __proto__: null, outcome: 'rejected', problem: "The formula's result is unusable: " + problem });
        return threw(thrown);
      }
    },
  };
})`;
