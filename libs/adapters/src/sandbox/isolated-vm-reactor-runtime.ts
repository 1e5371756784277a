// ReactorRuntime on isolated-vm: each run in an isolate of its own, under wall-time, memory and concurrency limits.
import { MAX_REACTOR_RESULT_BYTES, reactorMessage } from '@vault/domain';
import type { ReactorRequest, ReactorResult, ReactorRuntime } from '@vault/application';
import { AllowedHosts } from './allowed-hosts';
import { ConcurrencyLimit } from './concurrency-limit';
import { exportProblem, FormulaFailure, loadFormula, type LoadedFormula } from './isolated-vm-formula-module';
import { sandboxFetch, type SandboxFetchAnswer, type SandboxFetchPolicy } from './sandbox-fetch';

export interface ReactorRuntimeOptions {
  /**
   * Wall time of one run (VAULT_REACTOR_TIMEOUT_MS), from leaving the queue to the result: loading the code, its top
   * level, the function and every promise and fetch it awaits.
   */
  timeoutMs: number;
  /** Heap of each run's isolate, in MB (VAULT_REACTOR_MEMORY_MB; isolated-vm's minimum is 8). */
  memoryLimitMb: number;
  /** Runs at once (VAULT_REACTOR_CONCURRENCY); each holds an isolate of up to `memoryLimitMb`. */
  concurrency: number;
  /** Runs waiting for a slot; one more is answered `busy`. Defaults to 4 × `concurrency`. */
  queueSize: number;
  /**
   * `host[:port]` entries the code's `fetch` may reach (VAULT_REACTOR_ALLOWED_HOSTS); empty, the default, is no
   * network. A host without a port is allowed on its scheme's default port only. See AllowedHosts.
   */
  allowedHosts: readonly string[];
  /** Largest response body a fetch reads, in bytes; a larger one fails that fetch. */
  maxFetchResponseBytes: number;
  /** Redirects a fetch follows, each to an allowed host, before it fails. */
  maxFetchRedirects: number;
  /** Fetches of one run in flight at once; more wait for one to finish. */
  maxFetchesInFlight: number;
  /** Fetches of one run not settled yet, in flight or waiting; one more throws in the code. */
  maxPendingFetches: number;
  /** Fetches of one run in all, answered or not; one more throws in the code. */
  maxFetchesPerRun: number;
  /** Largest request of a fetch (URL, headers and body, as JSON in UTF-8); a larger one throws in the code. */
  maxFetchRequestBytes: number;
  /** Largest `raw`, and largest `tokenize`, as UTF-8 JSON. */
  maxResultBytes: number;
}

export const DEFAULT_REACTOR_RUNTIME_OPTIONS: Omit<ReactorRuntimeOptions, 'queueSize'> = {
  timeoutMs: 10_000,
  memoryLimitMb: 64,
  concurrency: 4,
  allowedHosts: [],
  maxFetchResponseBytes: 1024 * 1024,
  maxFetchRedirects: 5,
  maxFetchesInFlight: 4,
  maxPendingFetches: 16,
  maxFetchesPerRun: 64,
  // Each request is copied out of the isolate, outside its heap limit: kept well under the response cap.
  maxFetchRequestBytes: 256 * 1024,
  maxResultBytes: MAX_REACTOR_RESULT_BYTES,
};

/** `options` over the defaults, checked: throws a RangeError naming the first option out of range. */
export const reactorRuntimeOptions = (options: Partial<ReactorRuntimeOptions>): ReactorRuntimeOptions => {
  const merged = { ...DEFAULT_REACTOR_RUNTIME_OPTIONS, ...options };
  const checked = { ...merged, queueSize: options.queueSize ?? 4 * merged.concurrency };
  const positive = ['timeoutMs', 'memoryLimitMb', 'concurrency', 'maxFetchResponseBytes', 'maxFetchesInFlight', 'maxFetchesPerRun', 'maxFetchRequestBytes', 'maxResultBytes'] as const;
  for (const name of [...positive, 'queueSize', 'maxFetchRedirects'] as const) {
    const value = checked[name];
    const least = (positive as readonly string[]).includes(name) ? 1 : 0;
    if (!Number.isInteger(value) || value < least) {
      throw new RangeError(`${name} must be ${least ? 'a positive' : 'a non-negative'} integer, not ${value}`);
    }
  }
  if (checked.maxPendingFetches < checked.maxFetchesInFlight || !Number.isInteger(checked.maxPendingFetches)) {
    throw new RangeError(`maxPendingFetches must be an integer of at least maxFetchesInFlight, not ${checked.maxPendingFetches}`);
  }
  AllowedHosts.parse(checked.allowedHosts);
  return checked;
};

/**
 * Runs SPEC's `module.exports = async function ({ args, configuration }) { return { raw, tokenize }; }`.
 *
 * Each run gets a fresh isolate (its own heap, built-ins and global object), disposed when the run ends on every
 * path: nothing a run changes (globals, prototypes, module state) is seen by any other run. An isolate costs a few
 * milliseconds, so there is no pool to keep clean. The code runs on isolated-vm's threads, never on the event loop.
 *
 * What the code has: the ECMAScript built-ins, a `console` that does nothing, `global`, `module`/`exports`, a
 * `require` that throws, and `fetch(url, { method, headers, body })`:
 * - `url` a string (anything else is turned into one); http: and https: only, to an allowed host only;
 * - `method` one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (default GET); `headers` a plain object of names to
 *   strings; `body` a string (no body with GET or HEAD);
 * - redirects are followed (up to `maxFetchRedirects`) only to allowed hosts; a cross-origin hop drops the
 *   authorization, cookie and proxy-authorization headers; 303 (and 301/302 after POST) turn into a GET;
 * - it resolves to a frozen `{ status, ok, url, headers: { get(name), has(name), entries() }, text(), json() }`
 *   with the whole body read (at most `maxFetchResponseBytes`), so `text()` and `json()` may be called again;
 * - a run has at most `maxPendingFetches` fetches under way, `maxFetchesInFlight` of them sent, the others waiting,
 *   and `maxFetchesPerRun` in all (a refused one counts too); a request (URL, headers and body as JSON) is at most `maxFetchRequestBytes`;
 * - a refusal, a network failure, a body too large, a bound above or the end of the run's time rejects it with a
 *   TypeError whose message names at most the host.
 * No timers, no Buffer, URL, TextEncoder or other Node.js or web APIs.
 *
 * Nothing is logged here: args, configuration, results and the code's errors only ever travel in the result.
 */
export class IsolatedVmReactorRuntime implements ReactorRuntime {
  private readonly options: ReactorRuntimeOptions;
  private readonly fetchPolicy: SandboxFetchPolicy;
  private readonly limit: ConcurrencyLimit;
  private readonly running = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  private closed = false;

  constructor(options: Partial<ReactorRuntimeOptions> = {}) {
    this.options = reactorRuntimeOptions(options);
    this.fetchPolicy = {
      allowedHosts: AllowedHosts.parse(this.options.allowedHosts),
      maxResponseBytes: this.options.maxFetchResponseBytes,
      maxRedirects: this.options.maxFetchRedirects,
    };
    this.limit = new ConcurrencyLimit(this.options.concurrency, this.options.queueSize);
  }

  run(code: string, request: ReactorRequest): Promise<ReactorResult> {
    if (this.closed) return Promise.resolve(this.busy('The reactor runtime is shutting down.'));
    const queued = this.limit.tryRun(() => this.runNow(code, request));
    return queued ?? Promise.resolve(this.busy('Too many reactor invocations are waiting; try again later.'));
  }

  /** Ends every run (their callers get `busy`), answers `busy` to every later one, and resolves once all are gone. */
  async close(): Promise<void> {
    this.closed = true;
    const running = [...this.running];
    for (const run of running) run.controller.abort();
    await Promise.allSettled(running.map((run) => run.done));
  }

  private runNow(code: string, request: ReactorRequest): Promise<ReactorResult> {
    const controller = new AbortController();
    const done = this.runIsolated(code, request, controller);
    const run = { controller, done };
    this.running.add(run);
    return done.finally(() => this.running.delete(run));
  }

  private async runIsolated(code: string, request: ReactorRequest, controller: AbortController): Promise<ReactorResult> {
    if (this.closed) return this.busy('The reactor runtime is shutting down.');
    const { signal } = controller;
    const deadline = setTimeout(() => controller.abort(), this.options.timeoutMs);
    const { maxFetchesInFlight, maxPendingFetches, maxFetchesPerRun, maxFetchRequestBytes } = this.options;
    const fetches = new ConcurrencyLimit(maxFetchesInFlight, maxPendingFetches - maxFetchesInFlight);
    let fetchesAsked = 0;
    let formula: LoadedFormula | undefined;
    try {
      const loaded = await loadFormula(
        code,
        { memoryLimitMb: this.options.memoryLimitMb, timeoutMs: this.options.timeoutMs },
        {
          signal,
          maxPendingFetches,
          maxFetchesPerRun,
          maxFetchRequestBytes,
          // The sandbox keeps to these bounds already; checked again, as nothing from the isolate is trusted.
          fetch: async (requestJson) => {
            fetchesAsked++;
            // A turn for the event loop before each request is measured and parsed too: many requests of a few
            // hundred KiB arriving together must not be handled back to back either.
            await new Promise<void>((resolve) => setImmediate(resolve));
            const answer =
              fetchesAsked > maxFetchesPerRun
                ? refused(`fetch: at most ${maxFetchesPerRun} fetches per invocation.`)
                : Buffer.byteLength(requestJson) > maxFetchRequestBytes
                  ? refused(`fetch: the request (URL, headers and body) is larger than ${maxFetchRequestBytes} bytes.`)
                  : ((await fetches.tryRun(() => sandboxFetch(parseOrNull(requestJson), this.fetchPolicy, signal))) ??
                    refused(`fetch: at most ${maxPendingFetches} fetches may be under way at once.`));
            // A turn for the event loop before each answer is encoded (up to ~30 ms for a 1 MiB body of control
            // characters): a burst of fetches finishing together must not hold it back to back (a review saw 575 ms).
            await new Promise<void>((resolve) => setImmediate(resolve));
            return JSON.stringify(answer);
          },
        },
      );
      if (this.closed) return this.busy('The reactor runtime is shutting down.');
      if (!loaded.ok) return failed(loaded.reason);
      formula = loaded.formula;
      if (formula.exported !== 'function') {
        return failed(exportProblem(formula.exported));
      }
      const result = await formula.react(request, { maxResultBytes: this.options.maxResultBytes });
      return { ok: true, raw: result.raw, tokenize: result.tokenize };
    } catch (error) {
      if (this.closed) return this.busy('The reactor runtime is shutting down.');
      if (error instanceof FormulaFailure) return failed(error.message);
      // The deadline disposed the isolate while the sandbox was being set up.
      if (signal.aborted) return failed(`The reactor did not finish within ${this.options.timeoutMs} ms.`);
      throw error;
    } finally {
      clearTimeout(deadline);
      // Also stops what the code left running: fetches it started and never awaited.
      controller.abort();
      formula?.dispose();
    }
  }

  private busy(message: string): ReactorResult {
    // Every run ends within the timeout, so a slot frees up within it.
    return { ok: false, kind: 'busy', message, retryAfterSeconds: Math.max(1, Math.ceil(this.options.timeoutMs / 1000)) };
  }
}

const failed = (message: string): ReactorResult => ({ ok: false, kind: 'failed', message: reactorMessage(message) });

const refused = (error: string): SandboxFetchAnswer => ({ error, response: null });

const parseOrNull = (json: string): unknown => {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
};
