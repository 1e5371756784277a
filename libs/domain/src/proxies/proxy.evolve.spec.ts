import {
  aContent,
  anApp,
  APP,
  CREATED_AT,
  LATER,
  OTHER_APP,
  OTHER_TENANT,
  PRIVATE_APP_ID,
  PROXY_ID,
  proxyCreated,
  proxyDeleted,
  proxyUpdated,
  TENANT,
} from './proxy.builders';
import { proxyDecider, type ProxyCommand } from './proxy.decide';
import type { ProxyEvent } from './proxy.events';
import { evolveProxy } from './proxy.evolve';
import { initialProxyState, visibleProxy } from './proxy.state';

const replay = (events: ProxyEvent[]) => events.reduce(evolveProxy, initialProxyState());

describe('evolveProxy', () => {
  const created = proxyCreated();
  const updated = proxyUpdated({ name: 'Renamed', require_auth: false, application_id: PRIVATE_APP_ID });
  const deleted = proxyDeleted();

  it('starts with no proxy', () => {
    expect(replay([])).toEqual({ status: 'absent' });
  });

  it('holds every field after creation, not yet modified', () => {
    expect(replay([created])).toEqual({
      status: 'active',
      proxy: {
        id: PROXY_ID, tenant_id: TENANT, ...aContent(),
        created_by: APP, created_at: CREATED_AT.toISOString(), modified_by: null, modified_at: null,
      },
    });
  });

  it('takes the whole proxy from an update and keeps who created it and when', () => {
    expect(replay([created, updated])).toEqual({
      status: 'active',
      proxy: {
        id: PROXY_ID, tenant_id: TENANT, ...aContent({ name: 'Renamed', require_auth: false, application_id: PRIVATE_APP_ID }),
        created_by: APP, created_at: CREATED_AT.toISOString(), modified_by: OTHER_APP, modified_at: LATER.toISOString(),
      },
    });
  });

  it('remembers a deleted id, and a stray update after it changes nothing', () => {
    const gone = { status: 'deleted', id: PROXY_ID, tenant_id: TENANT };
    expect(replay([created, deleted])).toEqual(gone);
    expect(replay([created, deleted, updated])).toEqual(gone);
  });

  it('ignores a stray update of a proxy that never existed', () => {
    expect(replay([updated])).toEqual({ status: 'absent' });
  });
});

describe('decide then evolve', () => {
  const run = (commands: ProxyCommand[]) =>
    commands.reduce((state, command) => proxyDecider.decide(command, state, anApp()).reduce(proxyDecider.evolve, state), proxyDecider.initialState());
  const create: ProxyCommand = { type: 'CreateProxy', data: { id: PROXY_ID, content: aContent(), application: null } };
  const update: ProxyCommand = { type: 'UpdateProxy', data: { id: PROXY_ID, content: aContent({ name: 'Renamed' }), application: null } };
  const remove: ProxyCommand = { type: 'DeleteProxy', data: { id: PROXY_ID } };

  it('a created proxy reads back as it was given, stamped by the caller', () => {
    expect(visibleProxy(run([create]), TENANT)).toEqual({
      id: PROXY_ID, tenant_id: TENANT, ...aContent(),
      created_by: APP, created_at: LATER.toISOString(), modified_by: null, modified_at: null,
    });
  });

  it('an updated proxy reads back with the new content and its creation kept', () => {
    expect(visibleProxy(run([create, update]), TENANT)).toMatchObject({
      name: 'Renamed', created_by: APP, created_at: LATER.toISOString(), modified_by: APP, modified_at: LATER.toISOString(),
    });
  });

  it('a deleted proxy is gone, and its id cannot be created again', () => {
    const state = run([create, remove]);
    expect(visibleProxy(state, TENANT)).toBeNull();
    expect(() => proxyDecider.decide(create, state, anApp())).toThrow('already exists');
  });
});

describe('visibleProxy', () => {
  it.each<[string, ProxyEvent[], string | null, boolean]>([
    ['shows a live proxy to its own tenant', [proxyCreated()], TENANT, true],
    ['hides a live proxy from another tenant', [proxyCreated()], OTHER_TENANT, false],
    ['hides a live proxy from a caller of no tenant', [proxyCreated()], null, false],
    ['hides a deleted proxy from its own tenant', [proxyCreated(), proxyDeleted()], TENANT, false],
    ['shows nothing where there never was a proxy', [], TENANT, false],
  ])('%s', (...[, history, tenantId, shown]) => {
    const proxy = visibleProxy(replay(history), tenantId);
    if (shown) expect(proxy).toMatchObject({ id: PROXY_ID, tenant_id: TENANT });
    else expect(proxy).toBeNull();
  });
});
