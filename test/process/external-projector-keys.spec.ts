// VAULT_PROJECTOR=external on the embedded read model: the API only reads the read model another instance's projector
// writes. A deleted or regenerated key must stop working there as it does where the projector runs, within the write
// wait, however warm the API's key cache is. Two API instances share one data dir, as two processes would.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

describe('keys on an API whose projector runs elsewhere', () => {
  let projecting: TestApp;
  let reading: TestApp;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-external-'));
    projecting = await startTestApp({}, dataDir);
    reading = await startTestApp({ VAULT_PROJECTOR: 'external' }, dataDir);
  });
  afterAll(async () => {
    await reading.close({ keepData: true });
    await projecting.close();
  });

  const status = async (app: TestApp, key: string) => (await app.http().get('/permissions').set('SVC-API-KEY', key)).status;
  /** The status the key gets once it settles, checked until the write wait has passed. */
  const settlesTo = async (app: TestApp, key: string, expected: number) => {
    const deadline = Date.now() + app.config.writeWaitMs;
    let last = await status(app, key);
    while (last !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      last = await status(app, key);
    }
    return last;
  };
  /** A key the external-projector API has authenticated (and so cached) a few times. */
  const warmKey = async (name: string) => {
    const app = await createApplication(projecting, { name, type: 'private', permissions: ['token:read'] });
    expect(await settlesTo(reading, app.key, 200)).toBe(200);
    for (let i = 0; i < 3; i++) expect(await status(reading, app.key)).toBe(200);
    return app;
  };

  it('refuses a key deleted through the other instance (401)', async () => {
    const app = await warmKey('deleted-elsewhere');
    expect((await projecting.http().delete(`/applications/${app.id}`).set('SVC-API-KEY', BOOTSTRAP_KEY)).status).toBe(204);
    expect(await settlesTo(reading, app.key, 401)).toBe(401);
  });

  it('refuses the old key of an application regenerated through the other instance, and takes the new one', async () => {
    const app = await warmKey('regenerated-elsewhere');
    const regenerated = await projecting.http().post(`/applications/${app.id}/regenerate`).set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(regenerated.status).toBe(200);
    expect(await settlesTo(reading, app.key, 401)).toBe(401);
    expect(await status(reading, regenerated.body.key)).toBe(200);
  });

  it('refuses, as soon as it answers, a key it deleted itself (its writes wait for the other projector)', async () => {
    const app = await warmKey('deleted-here');
    const deleted = await reading.http().delete(`/applications/${app.id}`).set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(deleted.status).toBe(204);
    expect(deleted.headers['x-projection-pending']).toBeUndefined();
    expect(await status(reading, app.key)).toBe(401);
  });

});
