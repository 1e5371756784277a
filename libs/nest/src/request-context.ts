// Installs, once per process, the store that carries each request's context (its id, a pending projection) along its
// async calls: everything in libs/nest that reads the context imports this first.
import { useRequestContextStore } from '@vault/application';
import { asyncLocalRequestContext } from '@vault/adapters';

useRequestContextStore(asyncLocalRequestContext);
