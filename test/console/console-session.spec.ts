// Signing in and out, the navigation, where the key is kept (sessionStorage only), what a key without a permission
// sees, and the headers the console is served with.
import type { Page } from 'playwright-core';
import { BOOTSTRAP_KEY, ConsoleRun, openArea, screenshot, signIn, startConsole } from './console-harness';

const AREAS = ['Tokens', 'Applications', 'Reactor formulas', 'Reactors', 'Proxies', 'Webhooks', 'Audit log', 'Tenant'];

describe('the web console: session, navigation and serving', () => {
  let run: ConsoleRun;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    run = await startConsole();
    ({ page, problems } = await run.newPage());
  }, 60_000);
  afterAll(() => run?.close(), 30_000);
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  it('GET / redirects to /console, which is served with a strict CSP and the security headers', async () => {
    const root = await fetch(`${run.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console');
    const index = await fetch(`${run.url}/console`);
    expect(index.status).toBe(200);
    const csp = index.headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'self'"]);
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('referrer-policy')).toBe('no-referrer');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    // No inline script, and every script and stylesheet from the service itself.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(1);
    expect(assets.every((asset) => asset.startsWith('/console/'))).toBe(true);
    const script = assets.find((asset) => asset.endsWith('.js'))!;
    const asset = await fetch(`${run.url}${script}`);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('content-security-policy')).toBe(csp);
  });

  it('answers a deep link with the console, and a missing asset with a 404; /docs still serves the API reference', async () => {
    const deep = await fetch(`${run.url}/console/tokens/4c1e6c9e-0000-4000-8000-000000000000`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="app">');
    expect((await fetch(`${run.url}/console/assets/gone-1234.js`)).status).toBe(404);
    expect((await fetch(`${run.url}/docs/`)).status).toBe(200);
  });

  it('refuses a bad key with the API’s own error, and keeps nothing', async () => {
    await page.goto(`${run.url}/console`);
    await page.getByLabel('API key').fill('not-a-key-of-this-vault-0123456789');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Unauthorized' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await screenshot(page, 'sign-in');
  });

  it('signs in, keeps the key in sessionStorage only, and shows every area in the navigation', async () => {
    await signIn(page, run.url);
    expect(page.url()).toBe(`${run.url}/console/tokens`);
    const links = await page.getByRole('navigation', { name: 'Areas' }).getByRole('link').allTextContents();
    expect(links).toEqual(AREAS);
    const storage = await page.evaluate(() => ({
      session: Object.keys(sessionStorage).map((name) => sessionStorage.getItem(name)),
      local: localStorage.length,
      cookie: document.cookie,
    }));
    expect(storage.session).toEqual([BOOTSTRAP_KEY]);
    expect(storage.local).toBe(0);
    expect(storage.cookie).toBe('');
    expect(await page.context().cookies()).toEqual([]);
    // Visit every area: no URL ever holds the key.
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    for (const area of AREAS) await openArea(page, area);
    urls.push(...(await page.evaluate(() => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)])));
    expect(urls.filter((url) => url.includes(BOOTSTRAP_KEY))).toEqual([]);
  });

  it('a reload keeps the session of the tab; "Sign out" forgets the key', async () => {
    await page.reload();
    await page.getByRole('navigation', { name: 'Areas' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.goto(`${run.url}/console/applications`);
    await page.getByLabel('API key').waitFor();
  });

  it('tells a key without a permission which one each area needs, never a blank page', async () => {
    const app = await run.call('POST', '/applications', { name: 'console-searcher', type: 'private', permissions: ['token:search'] });
    await signIn(page, run.url, app.key);
    const needs: Array<[string, string]> = [
      ['Applications', 'application:read'],
      ['Reactor formulas', 'reactor:read'],
      ['Reactors', 'reactor:read'],
      ['Proxies', 'proxy:read'],
      ['Audit log', 'log:read'],
      ['Tenant', 'tenant:read'],
    ];
    for (const [area, permission] of needs) {
      await openArea(page, area);
      await page.locator('.notice.forbidden').first().waitFor();
      expect(await page.locator('main').textContent()).toContain(`needs the ${permission} permission`);
    }
    await screenshot(page, 'forbidden');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('signs out by itself when the key stops working, and says why', async () => {
    const app = await run.call('POST', '/applications', { name: 'console-short-lived', type: 'private', permissions: ['token:search'] });
    await signIn(page, run.url, app.key);
    await run.call('DELETE', `/applications/${app.id}`);
    await openArea(page, 'Tokens').catch(() => undefined);
    await page.getByRole('button', { name: 'Search' }).click().catch(() => undefined);
    await page.getByLabel('API key').waitFor();
    await page.getByText('You were signed out').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });
});
