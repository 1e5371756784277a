import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { CONSOLE_CSP, loadConsoleFiles } from './console-files';
import { consoleMiddleware } from './console.middleware';

describe('serving the console', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  const appServing = (dir: string) => {
    const app = express();
    app.use(consoleMiddleware(loadConsoleFiles(dir)));
    app.use((_req, res) => res.status(418).send('next'));
    return app;
  };

  const built = () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-files-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.info(1)');
    writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
    return dir;
  };

  it('says how to build it when it was not built, with a 404 rather than a 500', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-files-'));
    dirs.push(dir);
    const answer = await request(appServing(dir)).get('/console/tokens');
    expect(answer.status).toBe(404);
    expect(answer.text).toContain('npm run build');
    expect(answer.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it.each([
    ['/console', 200, 'text/html; charset=utf-8', 'no-cache'],
    ['/console/', 200, 'text/html; charset=utf-8', 'no-cache'],
    ['/console/reactors/4c1e6c9e-0000-4000-8000-000000000000', 200, 'text/html; charset=utf-8', 'no-cache'],
    ['/console/assets/index-abc123.js', 200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
    ['/console/favicon.svg', 200, 'image/svg+xml', 'no-cache'],
    ['/console/assets/index-old999.js', 404, 'text/plain; charset=utf-8', 'no-store'],
    ['/console/../package.json', 200, 'text/html; charset=utf-8', 'no-cache'],
  ])('GET %s → %i %s, cache %s, with the security headers', async (path, status, type, cache) => {
    const answer = await request(appServing(built())).get(path);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe(type);
    expect(answer.headers['cache-control']).toBe(cache);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
  });

  it('answers HEAD without a body, and leaves other methods and paths to the API', async () => {
    const app = appServing(built());
    const head = await request(app).head('/console');
    expect(head.status).toBe(200);
    expect(head.text).toBeUndefined();
    expect((await request(app).post('/console').send({})).status).toBe(418);
    expect((await request(app).get('/consoles')).status).toBe(418);
    expect((await request(app).get('/tokens')).status).toBe(418);
  });
});
