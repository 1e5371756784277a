// Per-request facts that travel with the async call chain: the request id for logs and whether a write's projection is
// pending. Carrying them along the calls is the platform's business (AsyncLocalStorage on Node.js, an adapter); the
// use cases only read and mark them. Until a store is installed, nothing is carried: no request is in progress.

export interface RequestContext {
  requestId: string;
  projectionPending: boolean;
}

export interface RequestContextStore {
  run<T>(context: RequestContext, fn: () => T): T;
  current(): RequestContext | undefined;
}

const NONE: RequestContextStore = { run: (_context, fn) => fn(), current: () => undefined };

let store: RequestContextStore = NONE;

/** Installed once at start-up by the wiring. */
export const useRequestContextStore = (installed: RequestContextStore): void => {
  store = installed;
};

export const runWithRequestContext = <T>(context: RequestContext, fn: () => T): T => store.run(context, fn);

export const currentRequestContext = (): RequestContext | undefined => store.current();
