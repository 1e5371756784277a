// JavaScript evaluated inside each fresh isolate before the formula's code: the CommonJS shell the code runs in.

/**
 * The formula is wrapped as Node wraps a CommonJS file, so `module`, `exports`, `require` and a top-level `return`
 * work. Keep it on one line: user line numbers stay right, and only line-1 columns need the prefix subtracted.
 */
export const COMMONJS_PREFIX = '(function (module, exports, require) {';
export const COMMONJS_SUFFIX = '\n})';

/** Name given to the compiled code, so its frames are told apart from the prelude's in messages and stacks. */
export const FORMULA_FILENAME = 'formula.js';

/**
 * The prelude's value is `{ load, invoke }`, which the host calls by reference; nothing is put on the global
 * object but Node-like conveniences, so the formula cannot reach our plumbing by name.
 *
 * - `require` returns one inert stub for every module name and loads nothing. The check only asks what the code
 *   exports, and reactor code routinely does `const axios = require('axios'); const api = axios.create(…)` at top
 *   level: the stub is callable, constructible and returns itself for any property, so such code loads without a
 *   real module. What a module really does is the reactor runtime's business, not the code check's.
 * - `console` is a no-op, since top-level logging is common and harmless.
 * - Intrinsics are captured before the formula runs: code that replaces `JSON` or `String` only spoils its own check.
 * - Outcomes leave the isolate as JSON strings, so no object of the formula's ever crosses to the host.
 */
export const SANDBOX_PRELUDE = `(() => {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toText = String;
  const ErrorType = Error;
  const stub = new Proxy(function requiredModule() {}, {
    get: (_target, property) =>
      property === 'then' ? undefined : property === Symbol.toPrimitive ? () => '' : stub,
    apply: () => stub,
    construct: () => stub,
  });
  const require = () => stub;
  const ignore = () => undefined;
  globalThis.global = globalThis;
  globalThis.console = { log: ignore, info: ignore, warn: ignore, error: ignore, debug: ignore, trace: ignore };

  const describe = (thrown) => {
    try {
      if (thrown instanceof ErrorType) {
        return { error: toText(thrown.name) + ': ' + toText(thrown.message), stack: toText(thrown.stack).slice(0, 4000) };
      }
      const text = typeof thrown === 'string' ? thrown : stringify(thrown);
      return { error: toText(text) };
    } catch {
      return { error: 'a value that cannot be described' };
    }
  };

  let module = { exports: {} };
  return {
    load(factory) {
      module = { exports: {} };
      try {
        factory.call(module.exports, module, module.exports, require);
      } catch (thrown) {
        return stringify({ outcome: 'threw', ...describe(thrown) });
      }
      const exported = module.exports === stub ? 'required-module' : module.exports === null ? 'null' : typeof module.exports;
      return stringify({ outcome: 'loaded', exported });
    },
    async invoke(requestJson) {
      try {
        const response = await module.exports(parse(requestJson));
        return stringify({ outcome: 'returned', response: response === undefined ? null : response });
      } catch (thrown) {
        return stringify({ outcome: 'threw', ...describe(thrown) });
      }
    },
  };
})()`;
