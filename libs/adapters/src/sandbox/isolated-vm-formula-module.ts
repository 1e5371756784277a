// Loads formula code as a CommonJS module in a fresh isolated-vm isolate; the code never runs in the host's V8 heap.
import ivm from 'isolated-vm';
import { COMMONJS_PREFIX, COMMONJS_SUFFIX, FORMULA_FILENAME, SANDBOX_PRELUDE } from './sandbox-prelude';

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

export interface LoadedFormula {
  /** `typeof module.exports`, `'null'`, or `'required-module'` when the code exported what `require` gave it. */
  readonly exported: string;
  /**
   * Calls the exported function with a JSON copy of `request` and resolves to a JSON copy of its response.
   * Rejects with a message fit for the formula's author when the function throws, times out or runs out of memory.
   */
  invoke(request: FormulaRequest): Promise<unknown>;
  /** Frees the isolate; call it once done, even after a failed invocation. */
  dispose(): void;
}

export type LoadResult = { ok: true; formula: LoadedFormula } | { ok: false; reason: string };

type Outcome =
  | { outcome: 'loaded'; exported: string }
  | { outcome: 'returned'; response: unknown }
  | { outcome: 'threw'; error: string; stack?: string };

/**
 * Compiles `code` wrapped as `(function (module, exports, require) { … })` and runs its top level with a fresh
 * `module`. Failures of the code itself (syntax, throw, timeout, memory) are a `{ ok: false, reason }`; failures
 * of the sandbox machinery reject.
 */
export const loadFormula = async (code: string, limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS): Promise<LoadResult> => {
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryLimitMb });
  const sandbox = new Sandbox(isolate, limits);
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
  private api: { load: ivm.Reference; invoke: ivm.Reference } | null = null;

  constructor(
    private readonly isolate: ivm.Isolate,
    private readonly limits: SandboxLimits,
  ) {}

  async load(code: string): Promise<LoadResult> {
    const context = await this.isolate.createContext();
    const prelude: ivm.Reference = await context.eval(SANDBOX_PRELUDE, { reference: true });
    const api = {
      load: await prelude.get('load', { reference: true }),
      invoke: await prelude.get('invoke', { reference: true }),
    };
    this.api = api;
    let script: ivm.Script;
    try {
      script = await this.isolate.compileScript(COMMONJS_PREFIX + code + COMMONJS_SUFFIX, { filename: FORMULA_FILENAME });
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
    // The reason goes back to whoever sent the code: it names the error's kind and position, never the thrown
    // message (the code's own text, or a value it computed) nor an identifier of the code.
    if (outcome.outcome === 'threw') return { ok: false, reason: `The code threw while loading: ${kindWithLocation(outcome)}` };
    if (outcome.outcome !== 'loaded') throw new Error(`Unexpected sandbox outcome ${outcome.outcome}`);
    this.exported = outcome.exported;
    return { ok: true, formula: this };
  }

  async invoke(request: FormulaRequest): Promise<unknown> {
    const api = this.api;
    if (!api || this.isolate.isDisposed) throw new Error('The formula is not loaded.');
    const outcome = await this.guarded(
      () => api.invoke.apply(undefined, [JSON.stringify(request)], { timeout: this.limits.timeoutMs, result: { promise: true } }),
      'function',
    );
    if ('reason' in outcome) throw new Error(outcome.reason);
    if (outcome.outcome === 'threw') throw new Error(`The formula threw: ${withLocation(outcome)}`);
    if (outcome.outcome !== 'returned') throw new Error(`Unexpected sandbox outcome ${outcome.outcome}`);
    return outcome.response;
  }

  dispose(): void {
    if (!this.isolate.isDisposed) this.isolate.dispose();
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
    if (deadlinePassed || /timed out/i.test(message)) {
      return `${subject} did not finish within ${this.limits.timeoutMs} ms (an endless loop?).`;
    }
    if (this.isolate.isDisposed || /memory limit/i.test(message)) {
      return `${subject} used more than the ${this.limits.memoryLimitMb} MB of memory it may use.`;
    }
    // Anything else escaping the prelude's own try/catch still came from running the code (e.g. a stack overflow).
    return `${subject} failed: ${clip(withoutQuotes(message))}`;
  }

  private compileFailure(error: unknown, code: string): string {
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
