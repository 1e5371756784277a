// Loads formula code as a CommonJS module in a fresh isolated-vm isolate; the code never runs in the host's V8 heap.
import ivm from 'isolated-vm';
import { exceedsJsonSize, MAX_JSON_MEMBERS, MAX_JSON_VALUES } from '@vault/domain';
import { COMMONJS_PREFIX, COMMONJS_SUFFIX, FORMULA_FILENAME, SANDBOX_PRELUDE, type PreludeSettings } from './sandbox-prelude';

export interface SandboxLimits {
  /** Heap limit of the isolate, in MB (isolated-vm's minimum is 8). */
  memoryLimitMb: number;
  /** Time the code's top level (and each invocation) may run, in ms. */
  timeoutMs: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryLimitMb: 32, timeoutMs: 100 };

/** Extra time the host waits past `timeoutMs` before it disposes the isolate itself, should V8's own timer not fire. */
const HOST_DEADLINE_GRACE_MS = 2000;
const MAX_REASON_LENGTH = 500;

export interface FormulaRequest {
  args: unknown;
  configuration: unknown;
}

/**
 * Given for a reactor run, as against a code check: `require` throws instead of returning a stub, a thrown message
 * at load time is quoted (the caller of a run gets the code's messages anyway), and there is a `fetch`.
 */
export interface RunHost {
  /**
   * Serves the sandbox's `fetch`: takes the request as JSON, answers `{ error, response }` as JSON (see
   * sandbox-fetch.ts). Must not reject.
   */
  fetch(requestJson: string): Promise<string>;
  /** Fetches not settled yet, beyond which the sandbox's fetch throws without calling `fetch`. */
  maxPendingFetches: number;
  /** Fetches of the whole run, beyond which the sandbox's fetch throws without calling `fetch`. */
  maxFetchesPerRun: number;
  /** Longest request JSON the sandbox hands to `fetch`; a longer one throws in the sandbox. */
  maxFetchRequestBytes: number;
  /** Disposes the isolate when it aborts, wherever the code is; every step then fails as out of time. */
  signal: AbortSignal;
}

/** What the code returned under SPEC's contract, each parsed from JSON, `null` when left out. */
export interface FormulaResult {
  raw: unknown;
  tokenize: unknown;
}

/** The code's own failure (throw, limits, unusable result), with a message fit for the formula's author. */
export class FormulaFailure extends Error {
  override name = 'FormulaFailure';
}

export interface LoadedFormula {
  /**
   * `typeof module.exports`, `'null'`, `'required-module'` when the code exported what `require` gave it, or, for a
   * function that cannot serve as the formula's function, `'class'`, `'generator function'` or
   * `'async generator function'`.
   */
  readonly exported: string;
  /**
   * Calls the exported function with a JSON copy of `request` and resolves to a JSON copy of its response.
   * Rejects with a FormulaFailure when the function throws, times out or runs out of memory.
   */
  invoke(request: FormulaRequest): Promise<unknown>;
  /**
   * Calls the exported function as a reactor: its response must be nothing or an object whose `raw` and `tokenize`
   * are each absent or plain JSON (no functions, undefined array items, NaN, Dates, class instances or cycles;
   * properties set to undefined are left out, as JSON.stringify does) of at most `maxResultBytes` as UTF-8 JSON and
   * 100 levels deep. Rejects with a FormulaFailure otherwise, and as `invoke` does.
   */
  react(request: FormulaRequest, limits: { maxResultBytes: number }): Promise<FormulaResult>;
  /** Frees the isolate; call it once done, even after a failed invocation. */
  dispose(): void;
}

export type LoadResult = { ok: true; formula: LoadedFormula } | { ok: false; reason: string };

type Outcome =
  | { outcome: 'loaded'; exported: string }
  | { outcome: 'returned'; response: unknown }
  | { outcome: 'reacted'; raw: unknown; tokenize: unknown }
  | { outcome: 'rejected'; problem: unknown }
  | { outcome: 'threw'; error: string; stack?: string };

/**
 * Compiles `code` wrapped as `(function (module, exports, require) { … })` and runs its top level with a fresh
 * `module`. Failures of the code itself (syntax, throw, timeout, memory) are a `{ ok: false, reason }`; failures
 * of the sandbox machinery reject. Without `run`, the code is loaded to be checked; with it, to run as a reactor.
 */
export const loadFormula = async (
  code: string,
  limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
  run?: RunHost,
): Promise<LoadResult> => {
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryLimitMb });
  const sandbox = new Sandbox(isolate, limits, run);
  try {
    const result = await sandbox.load(code);
    if (!result.ok) sandbox.dispose();
    return result;
  } catch (error) {
    sandbox.dispose();
    throw error;
  }
};

class Sandbox implements LoadedFormula {
  exported = 'undefined';
  private api: { load: ivm.Reference; invoke: ivm.Reference; react: ivm.Reference } | null = null;
  /** The run's signal aborted: whatever fails from then on failed for lack of time. */
  private aborted = false;
  private disposed = false;
  private readonly hostFetch: ivm.Reference | undefined;
  private readonly onAbort = () => {
    this.aborted = true;
    this.dispose();
  };

  constructor(
    private readonly isolate: ivm.Isolate,
    private readonly limits: SandboxLimits,
    private readonly run: RunHost | undefined,
  ) {
    if (!run) return;
    this.hostFetch = new ivm.Reference(async (requestJson: unknown) =>
      typeof requestJson === 'string'
        ? run.fetch(requestJson)
        : JSON.stringify({ error: 'fetch: the request is not valid.', response: null }),
    );
    if (run.signal.aborted) this.onAbort();
    else run.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  async load(code: string): Promise<LoadResult> {
    if (this.aborted) return { ok: false, reason: this.outOfTime('top level') };
    const context = await this.isolate.createContext();
    const setup: ivm.Reference = await context.eval(SANDBOX_PRELUDE, { reference: true });
    const settings: PreludeSettings = this.run
      ? { modules: 'unavailable', fetch: { maxPending: this.run.maxPendingFetches, maxPerRun: this.run.maxFetchesPerRun, maxRequestChars: this.run.maxFetchRequestBytes } }
      : { modules: 'stub' };
    const prelude: ivm.Reference = await setup.apply(undefined, [JSON.stringify(settings), this.hostFetch], {
      result: { reference: true },
    });
    const api = {
      load: await prelude.get('load', { reference: true }),
      invoke: await prelude.get('invoke', { reference: true }),
      react: await prelude.get('react', { reference: true }),
    };
    this.api = api;
    let script: ivm.Script;
    try {
      script = await this.isolate.compileScript(COMMONJS_PREFIX + withoutHashbang(code) + COMMONJS_SUFFIX, { filename: FORMULA_FILENAME });
    } catch (error) {
      return { ok: false, reason: this.compileFailure(error, code) };
    }
    const outcome = await this.guarded(async () => {
      // Running the script only evaluates the wrapper function, unless the code closes the wrapper early: either way
      // under the same limits as the top level itself.
      const factory: ivm.Reference = await script.run(context, { reference: true, timeout: this.limits.timeoutMs });
      return api.load.apply(undefined, [factory.derefInto()], { timeout: this.limits.timeoutMs });
    }, 'top level');
    if ('reason' in outcome) return { ok: false, reason: outcome.reason };
    // A check's reason goes back to whoever sent the code: it names the error's kind and position, never the thrown
    // message (the code's own text, or a value it computed) nor an identifier of the code. A run's caller gets the
    // code's messages anyway, and needs this one to know what went wrong.
    if (outcome.outcome === 'threw') {
      const what = this.run ? withLocation(outcome) : kindWithLocation(outcome);
      return { ok: false, reason: `The code threw while loading: ${what}` };
    }
    if (outcome.outcome !== 'loaded') throw new Error(`Unexpected sandbox outcome ${outcome.outcome}`);
    this.exported = outcome.exported;
    return { ok: true, formula: this };
  }

  async invoke(request: FormulaRequest): Promise<unknown> {
    const outcome = await this.call('invoke', [JSON.stringify(request)]);
    if (outcome.outcome !== 'returned') throw new Error(`Unexpected sandbox outcome ${outcome.outcome}`);
    return outcome.response;
  }

  async react(request: FormulaRequest, { maxResultBytes }: { maxResultBytes: number }): Promise<FormulaResult> {
    const outcome = await this.call('react', [JSON.stringify(request), maxResultBytes]);
    if (outcome.outcome === 'rejected') throw new FormulaFailure(clip(String(outcome.problem)));
    if (outcome.outcome !== 'reacted') throw new Error(`Unexpected sandbox outcome ${outcome.outcome}`);
    // The prelude already checked both; checked again here, since nothing that comes out of the isolate is trusted.
    const raw = parsedResult(outcome.raw, 'raw', maxResultBytes);
    if (raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
      throw new FormulaFailure("The formula's result is unusable: raw is not an object.");
    }
    return {
      raw,
      tokenize: parsedResult(outcome.tokenize, 'tokenize', maxResultBytes),
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.run?.signal.removeEventListener('abort', this.onAbort);
    this.hostFetch?.release();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }

  /** Calls the exported function through the prelude; the code's failures reject with a FormulaFailure. */
  private async call(name: 'invoke' | 'react', args: (string | number)[]): Promise<Outcome> {
    const api = this.api;
    if (!api || this.isolate.isDisposed) {
      if (this.aborted) throw new FormulaFailure(this.outOfTime('function'));
      throw new Error('The formula is not loaded.');
    }
    const outcome = await this.guarded(
      () => api[name].apply(undefined, args, { timeout: this.limits.timeoutMs, result: { promise: true } }),
      'function',
    );
    if ('reason' in outcome) throw new FormulaFailure(outcome.reason);
    if (outcome.outcome === 'threw') throw new FormulaFailure(`The formula threw: ${withLocation(outcome)}`);
    return outcome;
  }

  private outOfTime(what: string): string {
    return `${what === 'top level' ? "The code's top level" : 'The formula'} did not finish within ${this.limits.timeoutMs} ms.`;
  }

  /** Runs a step of the code under the limits and turns the limits' failures into reasons. */
  private async guarded(step: () => Promise<unknown>, what: 'top level' | 'function'): Promise<Outcome | { reason: string }> {
    let deadlinePassed = false;
    const deadline = setTimeout(() => {
      deadlinePassed = true;
      this.dispose();
    }, this.limits.timeoutMs + HOST_DEADLINE_GRACE_MS);
    try {
      return JSON.parse((await step()) as string) as Outcome;
    } catch (error) {
      return { reason: this.limitFailure(error, what, deadlinePassed) };
    } finally {
      clearTimeout(deadline);
    }
  }

  private limitFailure(error: unknown, what: string, deadlinePassed: boolean): string {
    const message = errorParts(error).message;
    const subject = what === 'top level' ? "The code's top level" : 'The formula';
    // One message for running out of time, however it was noticed (isolated-vm's timeout, the host's deadline, the
    // run's abort); a check's child SIGKILLed by child-process-reactor-runtime answers the same text.
    if (this.aborted || deadlinePassed || /timed out/i.test(message)) return this.outOfTime(what);
    if (this.isolate.isDisposed || /memory limit/i.test(message)) {
      return `${subject} used more than the ${this.limits.memoryLimitMb} MB of memory it may use.`;
    }
    // Anything else escaping the prelude's own try/catch still came from running the code (e.g. a stack overflow).
    return `${subject} failed: ${clip(withoutQuotes(message))}`;
  }

  private compileFailure(error: unknown, code: string): string {
    if (this.aborted) return this.outOfTime('top level');
    if (this.isolate.isDisposed) return `The code is too large to compile within ${this.limits.memoryLimitMb} MB.`;
    const { name, message: full } = errorParts(error);
    // V8's parser recurses per nesting level: code nested thousands deep overflows its stack while compiling.
    if (name === 'RangeError') {
      return /call stack/i.test(full)
        ? 'The code nests too deeply to compile: brackets, braces or functions inside one another thousands of levels deep.'
        : 'The code exceeds a limit of the JavaScript engine and cannot be compiled.';
    }
    if (name !== 'SyntaxError') throw error;
    const located = /^(.*) \[[^\]]*:(\d+):(\d+)\]$/s.exec(full);
    if (!located) return `SyntaxError: ${clip(withoutQuotes(full))}`;
    const [, message, line, column] = located;
    // V8 only notices a missing or extra closing bracket on the wrapper's closing line, which the user never wrote.
    if (Number(line) > lineCount(code)) {
      return 'SyntaxError: Unexpected end of the code: a bracket or brace is left open, or one too many is closed.';
    }
    return `SyntaxError: ${clip(withoutQuotes(message))} (${location(Number(line), Number(column))})${esmHint(message)}`;
  }
}

/**
 * Node.js takes a CommonJS file whose first line is a hashbang (`#!/usr/bin/env node`, after an optional BOM); inside
 * the wrapper it would be a SyntaxError. Its `#!` becomes `//`: a comment of the same length, so every line and column
 * stays where the author wrote it.
 */
export const withoutHashbang = (code: string): string => code.replace(/^(\uFEFF?)#!/, '$1//');

/**
 * Why an export other than `function` cannot serve as SPEC's "one asynchronous function" (`exported` as
 * LoadedFormula.exported names it). Plain functions and arrows are fine: they may return a promise.
 */
export const exportProblem = (exported: string): string => {
  if (exported === 'required-module') return "module.exports must be the formula's own async function, not a required module.";
  const what = exported === 'undefined' || exported === 'null' ? exported : `${/^[aeiou]/.test(exported) ? 'an' : 'a'} ${exported}`;
  const why =
    exported === 'class'
      ? ': a class cannot be called without new'
      : exported.endsWith('generator function')
        ? ': a generator function returns an iterator, not the response'
        : '';
  return `module.exports must be an async function taking { args, configuration }, not ${what}${why}.`;
};

/** A `raw` or `tokenize` the prelude answered: null, or JSON text of at most `maxBytes` in UTF-8. */
const parsedResult = (json: unknown, name: string, maxBytes: number): unknown => {
  if (json === null) return null;
  if (typeof json !== 'string') throw new Error(`Unexpected sandbox ${name} of type ${typeof json}`);
  if (Buffer.byteLength(json, 'utf8') > maxBytes) {
    throw new FormulaFailure(`The formula's result is unusable: ${name} is larger than ${maxBytes} bytes as JSON.`);
  }
  const value: unknown = JSON.parse(json);
  // The request bodies' bounds: decoding the result again in the API's process then holds its event loop briefly.
  if (exceedsJsonSize(value)) {
    throw new FormulaFailure(
      `The formula's result is unusable: ${name} holds more than ${MAX_JSON_VALUES} JSON values or ${MAX_JSON_MEMBERS} object members.`,
    );
  }
  return value;
};

/**
 * Errors from the native addon are made in Node's own realm, so `instanceof Error` fails for them under test
 * runners that give each test file its own realm: read them by shape instead.
 */
const errorParts = (error: unknown): { name: string; message: string } => {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { name, message } = error as { name?: unknown; message?: unknown };
    return { name: String(name), message: String(message) };
  }
  return { name: 'Error', message: String(error) };
};

/** Lines as JavaScript counts them: CR LF, LF, CR and the Unicode line and paragraph separators each end one. */
const lineCount = (code: string): number => code.split(/\r\n|[\n\r\u2028\u2029]/).length;

/** An invocation's error, with the first frame of the formula's own file in its stack as a user-facing position. */
const withLocation = ({ error, stack }: { error: string; stack?: string }): string => {
  const at = positionIn(stack);
  return at ? `${clip(error)} (${at})` : clip(error);
};

const FRAME = new RegExp(`${FORMULA_FILENAME.replace('.', '\\.')}:(\\d+):(\\d+)`);

/** `line 2, column 7` of the first frame of the formula's own file in a stack, or null. */
const positionIn = (stack: string | undefined): string | null => {
  const frame = stack ? FRAME.exec(stack) : null;
  return frame ? location(Number(frame[1]), Number(frame[2])) : null;
};

/** The built-in error classes, which a reason may name; a class of the code's own is just "an error". */
const BUILT_IN_ERRORS = new Set(['Error', 'TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'EvalError', 'URIError', 'AggregateError']);

/** What was thrown while loading, as its built-in class and position only: `ReferenceError (line 2, column 7)`. */
const kindWithLocation = ({ error, stack }: { error: string; stack?: string }): string => {
  const name = /^([A-Za-z]*Error)(?::|$)/.exec(error)?.[1];
  const kind = stack === undefined ? 'a value that is not an Error' : name && BUILT_IN_ERRORS.has(name) ? name : 'an error';
  const at = positionIn(stack);
  return at ? `${kind} (${at})` : kind;
};

/**
 * V8's messages quote the code they stumble on (`Unexpected identifier 'apiKey'`, `Invalid regular expression:
 * /…/`): those parts are dropped, the kind of problem stays.
 */
const withoutQuotes = (message: string): string =>
  message
    .replace(/\s*'[^'\n]*'/g, '')
    .replace(/\s*"[^"\n]*"/g, '')
    .replace(/\s*`[^`\n]*`/g, '')
    .replace(/:\s*\/.*\/[a-z]*(?=:|$)/s, '')
    .trim();

/** Positions in the user's own code: line 1 starts after the wrapper's prefix. */
const location = (line: number, column: number): string =>
  `line ${line}, column ${line === 1 ? Math.max(1, column - COMMONJS_PREFIX.length) : column}`;

const esmHint = (message: string): string =>
  /'export'|import statement/.test(message)
    ? '. Formula code is CommonJS: use module.exports = async function (request) { … }.'
    : '';

const clip = (text: string): string => (text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH)}…` : text);
