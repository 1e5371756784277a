// The request context carried along each request's async call chain by Node.js's AsyncLocalStorage.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestContext, RequestContextStore } from '@vault/application';

const storage = new AsyncLocalStorage<RequestContext>();

export const asyncLocalRequestContext: RequestContextStore = {
  run: (context, fn) => storage.run(context, fn),
  current: () => storage.getStore(),
};
