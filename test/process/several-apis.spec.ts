// "npm start" twice on one data dir, same environment, two ports: the pair is one vault. One process holds the
// projector lease and projects; the other follows its commits. Every write through either is read, searched, updated,
// deleted and authenticated through the other, and a SIGKILLed projecting process is replaced by the other within seconds.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiProcess, runCli, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'several-apis-bootstrap-key-0123456789abcdef';
const ALL_TOKEN = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete'];
const TAKEN = 'projector lease taken: projecting from the read model checkpoint';
const FOLLOWING = 'another process holds the projector lease: following its commits';

interface Answer {
  status: number;
  body: any;
  pending: boolean;
}

const call = async (api: ApiProcess, key: string, method: string, path: string, body?: unknown): Promise<Answer> => {
  const response = await fetch(api.url + path, {
    method,
    headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, pending: response.headers.get('x-projection-pending') === 'true' };
};

const search = async (api: ApiProcess, key: string, query: string) => {
  const { status, body } = await call(api, key, 'POST', '/tokens/search', { query, size: 100 });
  expect(status).toBe(200);
  return { total: body.pagination.total_items as number, ids: (body.data as Array<{ id: string }>).map((t) => t.id).sort() };
};

const eventually = async (check: () => boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
};

const waitForLine = async (api: ApiProcess, line: string, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!api.output().includes(line) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return api.output().includes(line);
};

describe('two API processes on one data dir', () => {
  let parent: string;
  let env: Record<string, string>;
  const apis: ApiProcess[] = [];

  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-several-'));
    // What a user sets for both; nothing tells either process which one projects.
    env = { VAULT_DATA_DIR: join(parent, 'data'), VAULT_BOOTSTRAP_KEY: BOOTSTRAP, VAULT_RATE_LIMIT_PER_SECOND: '100000' };
  });
  afterEach(async () => {
    for (const api of apis.splice(0)) await api.stop('SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  /** `a` starts first and takes the lease; `b`, started second with the same environment, follows. */
  const startPair = async () => {
    const a = await startApiProcess(env);
    apis.push(a);
    const b = await startApiProcess(env);
    apis.push(b);
    expect(a.output()).toContain(TAKEN);
    expect(b.output()).toContain(FOLLOWING);
    expect(b.output()).not.toContain(TAKEN);
    return { a, b };
  };

  const tokenApp = async (api: ApiProcess) => {
    const created = await call(api, BOOTSTRAP, 'POST', '/applications', {
      name: 'backend',
      type: 'private',
      permissions: ALL_TOKEN,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL_TOKEN }],
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; key: string };
  };

  const createToken = async (api: ApiProcess, key: string, body: Record<string, unknown>) => {
    const created = await call(api, key, 'POST', '/tokens', body);
    expect({ status: created.status, pending: created.pending }).toEqual({ status: 201, pending: false });
    return created.body.id as string;
  };

  it('tokens written through either process are read, searched, updated and deleted through the other', async () => {
    const { a, b } = await startPair();
    expect((await fetch(b.url + '/health/ready')).status).toBe(200);
    const { key } = await tokenApp(a);

    const visa = await createToken(a, key, { type: 'card_number', data: '4242424242424242' });
    const mastercard = await createToken(a, key, { type: 'card_number', data: '5555555555554444', metadata: { shop: 'north' } });
    const ssn = await createToken(a, key, { type: 'social_security_number', data: '123-45-6789' });
    // Read through the process that does not project, at once: a create answers only once the read model has it.
    const read = await call(b, key, 'GET', `/tokens/${visa}`);
    expect({ status: read.status, data: read.body.data, type: read.body.type }).toEqual({ status: 200, data: '4242424242424242', type: 'card_number' });
    expect(await search(b, key, `id:${mastercard}`)).toEqual({ total: 1, ids: [mastercard] });
    expect(await search(b, key, 'type:card_number')).toEqual({ total: 2, ids: [visa, mastercard].sort() });
    expect(await search(b, key, 'data:6789')).toEqual({ total: 1, ids: [ssn] });

    // Changed and deleted through the follower; seen by both, in reads and in search.
    const patched = await call(b, key, 'PATCH', `/tokens/${mastercard}`, { metadata: { shop: 'south' } });
    expect({ status: patched.status, pending: patched.pending }).toEqual({ status: 200, pending: false });
    expect((await call(a, key, 'GET', `/tokens/${mastercard}`)).body.metadata).toEqual({ shop: 'south' });
    expect(await search(a, key, 'metadata.shop:south')).toEqual({ total: 1, ids: [mastercard] });
    expect(await search(b, key, 'metadata.shop:north')).toEqual({ total: 0, ids: [] });

    const deleted = await call(b, key, 'DELETE', `/tokens/${visa}`);
    expect({ status: deleted.status, pending: deleted.pending }).toEqual({ status: 204, pending: false });
    expect((await call(a, key, 'GET', `/tokens/${visa}`)).status).toBe(404);
    expect((await call(b, key, 'GET', `/tokens/${visa}`)).status).toBe(404);
    expect(await search(a, key, 'type:card_number')).toEqual({ total: 1, ids: [mastercard] });
    expect(await search(b, key, 'type:card_number')).toEqual({ total: 1, ids: [mastercard] });

    // Created through the follower: its answer waited for the other process's projector.
    const ein = await createToken(b, key, { type: 'employer_id_number', data: '12-3456789' });
    expect(await search(a, key, `id:${ein}`)).toEqual({ total: 1, ids: [ein] });
    expect(await search(b, key, 'type:employer_id_number')).toEqual({ total: 1, ids: [ein] });
    expect(b.output()).not.toContain(TAKEN);
  });

  it('an application key created or deleted through one process is honoured by the other at once', async () => {
    const { a, b } = await startPair();
    for (const [writer, other] of [
      [a, b],
      [b, a],
    ]) {
      const app = await tokenApp(writer);
      expect((await call(other, app.key, 'GET', '/permissions')).status).toBe(200);
      const deleted = await call(writer, BOOTSTRAP, 'DELETE', `/applications/${app.id}`);
      expect({ status: deleted.status, pending: deleted.pending }).toEqual({ status: 204, pending: false });
      expect((await call(other, app.key, 'GET', '/permissions')).status).toBe(401);
      expect((await call(writer, app.key, 'GET', '/permissions')).status).toBe(401);
    }
  });

  it('when the projecting process is killed (SIGKILL), the other takes over projecting within seconds', async () => {
    const { a, b } = await startPair();
    const { key } = await tokenApp(a);
    const before = await createToken(a, key, { type: 'card_number', data: '4242424242424242' });

    await a.stop('SIGKILL');
    const killedAt = Date.now();
    const takenAfterMs = waitForLine(b, TAKEN, 15_000).then((taken) => (taken ? Date.now() - killedAt : Infinity));
    // Written while a is gone: durable at once, answered applied once b projects (or pending after the write wait).
    const during = await call(b, key, 'POST', '/tokens', { type: 'card_number', data: '5555555555554444' });
    expect(during.status).toBe(201);
    // b bids every second, and takes at once the lease of a process of its host that no longer runs.
    expect(await takenAfterMs).toBeLessThan(3000);

    const after = await createToken(b, key, { type: 'card_number', data: '378282246310005' });
    expect(await search(b, key, 'type:card_number')).toEqual({ total: 3, ids: [before, during.body.id, after].sort() });
    expect((await call(b, key, 'GET', `/tokens/${during.body.id}`)).body.data).toBe('5555555555554444');
    expect((await fetch(b.url + '/health/ready')).status).toBe(200);

    // A process started now follows b.
    const c = await startApiProcess(env);
    apis.push(c);
    expect(c.output()).toContain(FOLLOWING);
    expect(await search(c, key, `id:${after}`)).toEqual({ total: 1, ids: [after] });
  });

  it('when the projecting process stops with SIGTERM, it hands the lease over: the other projects within about a second', async () => {
    const { a, b } = await startPair();
    const { key } = await tokenApp(a);
    expect(await a.stop('SIGTERM')).toBe(0);
    const stoppedAt = Date.now();
    expect(await waitForLine(b, TAKEN, 10_000)).toBe(true);
    // Released, not expired: well under the 5 s a lease takes to expire.
    expect(Date.now() - stoppedAt).toBeLessThan(3000);
    const id = await createToken(b, key, { type: 'card_number', data: '4242424242424242' });
    expect(await search(b, key, `id:${id}`)).toEqual({ total: 1, ids: [id] });
  });

  it('a read model rebuilt by the CLI is followed by the projecting, the following and a VAULT_PROJECTOR=external process', async () => {
    const { a, b } = await startPair();
    const external = await startApiProcess({ ...env, VAULT_PROJECTOR: 'external' });
    apis.push(external);
    const { key } = await tokenApp(a);
    const before = await createToken(b, key, { type: 'card_number', data: '4242424242424242' });

    const rebuilt = await runCli(['projections', 'rebuild'], env);
    expect(rebuilt.code).toBe(0);
    // Each process notices the new pointer within its 500 ms watch; a line from before the pointer was written (the
    // watch also fires when a process opening the read model narrows the pointer file's mode) does not count.
    const swappedAt = Math.floor(statSync(join(env.VAULT_DATA_DIR, 'readmodel', 'CURRENT')).mtimeMs);
    const switched = (api: ApiProcess) =>
      api
        .output()
        .split('\n')
        .some((line) => line.includes('"switched to the rebuilt read model"') && Date.parse(JSON.parse(line).time) >= swappedAt);
    for (const api of [a, b, external]) expect(await eventually(() => switched(api), 5000)).toBe(true);

    // Written through each after the swap: each write answers applied (a process still on the old file would wait for
    // a checkpoint that never moves there) and is read and found through every process.
    const written: Array<[string, string]> = [[before, '4242424242424242']];
    for (const [writer, data] of [
      [b, '5555555555554444'],
      [external, '378282246310005'],
      [a, '6011111111111117'],
    ] as const) {
      const id = await createToken(writer, key, { type: 'card_number', data });
      written.push([id, data]);
      const ids = written.map(([each]) => each).sort();
      for (const [name, reader] of Object.entries({ a, b, external })) {
        const read = await call(reader, key, 'GET', `/tokens/${id}`);
        expect({ name, status: read.status, data: read.body?.data }).toEqual({ name, status: 200, data });
        expect({ name, ...(await search(reader, key, 'type:card_number')) }).toEqual({ name, total: ids.length, ids });
        expect({ name, ...(await search(reader, key, `id:${id}`)) }).toEqual({ name, total: 1, ids: [id] });
      }
    }
  });

  it('two processes started at the same moment on a fresh data dir elect one projector and bootstrap one tenant', async () => {
    const started = await Promise.allSettled([startApiProcess(env), startApiProcess(env)]);
    // Both are stopped after the test even when one failed to start.
    for (const each of started) if (each.status === 'fulfilled') apis.push(each.value);
    const [a, b] = started.map((each) => {
      if (each.status === 'rejected') throw each.reason;
      return each.value;
    });
    expect([a, b].filter((api) => api.output().includes(TAKEN))).toHaveLength(1);
    const { key } = await tokenApp(a);
    const id = await createToken(b, key, { type: 'card_number', data: '4242424242424242' });
    expect(await search(a, key, `id:${id}`)).toEqual({ total: 1, ids: [id] });
    expect((await call(b, BOOTSTRAP, 'GET', '/tenants/self')).body.name).toBe('default');
  });
});
