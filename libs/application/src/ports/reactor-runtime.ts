// Port: runs a reactor formula's code on one request, in a sandbox, under the service's limits.

/** What the code receives: SPEC's request object. `args` has had its detokenization expressions replaced. */
export interface ReactorRequest {
  args: unknown;
  configuration: Record<string, unknown>;
}

/**
 * The outcome of one run. Outcomes are values, not exceptions: both failures are expected answers to a caller.
 *
 * - `ok: true`: the code returned `{ raw, tokenize }`; each is JSON (parsed), or `null` when the code left it out.
 *   `raw` is at most MAX_REACTOR_RESULT_BYTES as JSON, and so is `tokenize`.
 * - `failed` (the API answers 422 with `errors.reactor = [message]`): the code threw, did not finish within the wall
 *   time, ran out of memory, did not load, or returned something that is not an object of JSON values. `message` is
 *   for the caller (the thrown message, or what went wrong), at most MAX_REACTOR_MESSAGE_LENGTH characters. It may
 *   hold whatever the code put in its error, so it goes into the response only, never into a log.
 * - `busy` (503 with `Retry-After: retryAfterSeconds`): the queue of waiting invocations is full, or the runtime is
 *   shutting down. The code did not run.
 *
 * `run` rejects only when the runtime itself breaks (a 500), never because of what the code does.
 */
export type ReactorResult =
  | { ok: true; raw: unknown; tokenize: unknown }
  | { ok: false; kind: 'failed'; message: string }
  | { ok: false; kind: 'busy'; message: string; retryAfterSeconds: number };

/** Who a run is for: the runtime shares its slots fairly between tenants. Never given to the code. */
export interface ReactorRunOwner {
  tenantId: string;
}

export interface ReactorRuntime {
  /** Runs `code` (SPEC's `module.exports = async function (req) { … }`) on `request`, in a context of its own. */
  run(code: string, request: ReactorRequest, owner?: ReactorRunOwner): Promise<ReactorResult>;
}
