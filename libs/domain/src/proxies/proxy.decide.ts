// What each proxy write records. Pure: the id and the key come from the command, time and tenant from the context; the
// handler validated the body (validateProxyInput), sealed the secrets and read the application snapshot beforehand, and
// decide re-checks the rule about that application against the snapshot.
import type { Decider } from '../shared/decider';
import { conflict, DomainError, notFound, validationError } from '../shared/errors';
import type { CommandContext } from '../shared/events';
import type { ProxyEvent } from './proxy.events';
import { evolveProxy } from './proxy.evolve';
import { proxyApplicationProblem } from './proxy.rules';
import { initialProxyState, visibleProxy, type ProxyRecord, type ProxyState } from './proxy.state';
import type { ProxyApplicationSnapshot, ProxyContent } from './proxy.types';

export interface CreateProxy {
  type: 'CreateProxy';
  data: { id: string; content: ProxyContent; application: ProxyApplicationSnapshot | null };
}

/** PUT (and a resolved PATCH): `content` is the whole proxy after the change; its key never changes. */
export interface UpdateProxy {
  type: 'UpdateProxy';
  data: { id: string; content: ProxyContent; application: ProxyApplicationSnapshot | null };
}

export interface DeleteProxy {
  type: 'DeleteProxy';
  data: { id: string };
}

export type ProxyCommand = CreateProxy | UpdateProxy | DeleteProxy;

export const decideProxy = (command: ProxyCommand, state: ProxyState, ctx: CommandContext): ProxyEvent[] => {
  const tenantId = requireTenant(ctx);
  switch (command.type) {
    case 'CreateProxy': {
      const { id, content, application } = command.data;
      assertProxyIdFree(state);
      assertApplicationFits(content, application, tenantId);
      return [{ type: 'ProxyCreated', data: { id, tenant_id: tenantId, ...content, created_by: ctx.actor.id, created_at: ctx.now.toISOString() } }];
    }
    case 'UpdateProxy': {
      const { id, content, application } = command.data;
      const proxy = findVisibleProxy(state, ctx);
      if (content.key_hash !== proxy.key_hash) throw new Error("UpdateProxy would change the proxy's key.");
      assertApplicationFits(content, application, tenantId);
      return [{ type: 'ProxyUpdated', data: { id, tenant_id: proxy.tenant_id, ...content, modified_by: ctx.actor.id, modified_at: ctx.now.toISOString() } }];
    }
    case 'DeleteProxy': {
      const proxy = findVisibleProxy(state, ctx);
      return [{ type: 'ProxyDeleted', data: { id: proxy.id, tenant_id: proxy.tenant_id, deleted_by: ctx.actor.id, deleted_at: ctx.now.toISOString() } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`Unknown proxy command ${(unhandled as { type: string }).type}`);
    }
  }
};

const assertApplicationFits = (content: ProxyContent, application: ProxyApplicationSnapshot | null, tenantId: string): void => {
  if (content.application_id === null) return;
  if (application !== null && application.id !== content.application_id) throw new Error('The proxy command carries the snapshot of another application.');
  const problem = proxyApplicationProblem(application, tenantId);
  if (problem) throw validationError({ 'application.id': [problem] });
};

/** A create needs a stream with no history: a live or deleted proxy with this id is a conflict. */
export const assertProxyIdFree = (state: ProxyState): void => {
  if (state.status !== 'absent') throw conflict('A proxy with this id already exists.');
};

/** The proxy an update or delete acts on. Missing, deleted and other tenants' proxies all answer the same 404. */
export const findVisibleProxy = (state: ProxyState, ctx: CommandContext): ProxyRecord => {
  const proxy = visibleProxy(state, ctx.tenantId);
  if (!proxy) throw notFound('Proxy');
  return proxy;
};

const requireTenant = (ctx: CommandContext): string => {
  if (!ctx.tenantId) throw new DomainError('forbidden', 'Proxies belong to a tenant; this caller acts for none.');
  return ctx.tenantId;
};

/** decide, evolve and the empty state together, as the command handlers and the given/when/then specs use them. */
export const proxyDecider: Decider<ProxyCommand, ProxyState, ProxyEvent> = {
  decide: decideProxy,
  evolve: evolveProxy,
  initialState: initialProxyState,
};
