// The console under attack and under an accessibility audit. Every field that shows user data holds script-shaped
// payloads; each page must render them as text. The pages run without the CSP here (bypassCSP), so an injected
// handler would run if the console ever built HTML from data: the CSP is the second line, not the one tested.
// Then axe (axe-core, loaded into every document of that page) checks every page for serious or critical violations.
import type { Page } from 'playwright-core';
import { LocalHttpServer, startLocalHttpServer } from '../support/local-http-server';
import { ConsoleRun, openArea, signIn, startConsole } from './console-harness';

/** Each payload, run, sets window.__xss and opens a dialog; the tests expect neither. */
const PAYLOADS = [
  `<img src=x onerror="window.__xss='img';alert(1)">`,
  `<script>window.__xss='script';alert(1)</script>`,
  `"><svg onload="window.__xss='svg';alert(1)">`,
  `</textarea><iframe srcdoc="<script>parent.__xss='iframe'</script>">`,
  `javascript:window.__xss='url'`,
  `{{constructor.constructor('window.__xss=1')()}}`,
];
const P = (i: number) => PAYLOADS[i % PAYLOADS.length];

describe('the web console: XSS attempts and accessibility', () => {
  let run: ConsoleRun;
  let destination: LocalHttpServer;
  let page: Page;
  let problems: string[];
  let dialogs: string[];
  let tokenKey: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // The destination echoes the payloads back as HTML, as a hostile third party might.
    destination = await startLocalHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(PAYLOADS.join('\n'));
    });
    run = await startConsole({ VAULT_PROXY_ALLOWED_HOSTS: destination.host, VAULT_WEBHOOK_ALLOWED_HOSTS: destination.host });
    const tokenPermissions = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete', 'token:use'];
    const app = await run.call('POST', '/applications', {
      name: P(0),
      type: 'private',
      permissions: tokenPermissions,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: tokenPermissions, description: P(1) }],
    });
    tokenKey = app.key;
    ids.application = app.id;
    const metadata = Object.fromEntries(PAYLOADS.map((payload, i) => [`note${i}`, payload]));
    ids.token = (await run.call('POST', '/tokens', { type: 'token', data: P(0), metadata }, { key: tokenKey })).id;
    await run.call('POST', '/tokens', { type: 'token', data: { html: P(2), list: PAYLOADS } }, { key: tokenKey });
    const formula = await run.call('POST', '/reactor-formulas', {
      name: P(2),
      description: P(3),
      type: 'private',
      code: `// ${P(1)}\nmodule.exports = async () => ({ raw: { html: ${JSON.stringify(P(0))}, all: ${JSON.stringify(PAYLOADS)} } });`,
      configuration: [{ name: 'mode', type: 'string', description: P(4) }],
      request_parameters: [{ name: 'card.number', type: 'string', description: P(5), optional: true }],
    });
    ids.formula = formula.id;
    ids.reactor = (await run.call('POST', '/reactors', { name: P(3), formula: { id: formula.id }, configuration: { mode: P(1) } })).id;
    ids.proxy = (await run.call('POST', '/proxies', { name: P(4), destination_url: destination.url('/x'), configuration: { note: P(0) } })).id;
    ids.webhook = (await run.call('POST', '/webhooks', { name: P(5), url: destination.url('/hooks'), events: ['token.created'] })).id;
    await run.call('PUT', '/tenants/self', { name: P(1) });
    const context = await run.newPage({ bypassCSP: true });
    ({ page, problems } = context);
    dialogs = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await page.addInitScript({ path: require.resolve('axe-core/axe.min.js') });
    await page.addInitScript(() => Object.defineProperty(window, '__xss', { set: (v) => ((window as any).__xssRan = String(v)), get: () => undefined }));
  }, 90_000);
  afterAll(async () => {
    await run?.close();
    await destination?.close();
  }, 30_000);
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  /** Goes to a console path without reloading, as its links do (axe stays loaded). */
  async function visit(path: string): Promise<void> {
    await page.evaluate(async (to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
      // Two frames: the new page has rendered (a page that loads shows its loading state from its first render).
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    }, `/console${path}`);
  }

  /** Nothing ran, nothing was parsed into elements, and the payloads are on the page as text. */
  async function expectInert(where: string, expectText = true): Promise<void> {
    await page.waitForFunction(() => !document.querySelector('.loading'));
    const found = await page.evaluate(() => ({
      ran: (window as any).__xssRan ?? null,
      injected: document.querySelectorAll('#app script, #app iframe, #app svg[onload], #app img[src="x"], #app [onerror], #app [onload]').length,
      // What the page shows: its text, and the values of its fields (an editor shows the payloads there).
      text: [document.getElementById('app')!.innerText, ...[...document.querySelectorAll('input, textarea')].map((field) => (field as HTMLInputElement).value)].join('\n'),
    }));
    expect({ where, ran: found.ran, injected: found.injected, dialogs }).toEqual({ where, ran: null, injected: 0, dialogs: [] });
    const shown = PAYLOADS.some((payload) => found.text.includes(payload.slice(0, 20)));
    if (expectText && !shown) throw new Error(`${where}: no payload is shown as text; the page reads:\n${found.text.slice(0, 2000)}`);
  }

  it('token data and metadata, in search results and the detail view', async () => {
    await signIn(page, run.url, tokenKey);
    await page.getByText('2 tokens found').waitFor();
    await expectInert('token search');
    await page.getByRole('link', { name: ids.token }).click();
    await page.getByRole('heading', { name: 'Token', level: 1 }).waitFor();
    await expectInert('token detail');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('application names and rule descriptions, formula names, descriptions, code and contracts', async () => {
    await signIn(page, run.url);
    const visits: Array<[string, string]> = [
      ['/applications', 'applications'],
      [`/applications/${ids.application}`, 'application'],
      ['/reactor-formulas', 'formulas'],
      [`/reactor-formulas/${ids.formula}`, 'formula'],
      [`/reactor-formulas/${ids.formula}/edit`, 'formula editor'],
      ['/reactors', 'reactors'],
      [`/reactors/${ids.reactor}`, 'reactor'],
      ['/proxies', 'proxies'],
      [`/proxies/${ids.proxy}`, 'proxy'],
      ['/webhooks', 'webhooks'],
      [`/webhooks/${ids.webhook}`, 'webhook'],
      ['/tenant', 'tenant'],
    ];
    for (const [path, where] of visits) {
      await visit(path);
      await page.locator('main h1').waitFor();
      await expectInert(where);
    }
  });

  it('a reactor’s raw output and a destination’s answer through a proxy', async () => {
    await page.goto(`${run.url}/console/reactors/${ids.reactor}`);
    await page.getByLabel('Invoke with API key').fill(tokenKey);
    await page.getByRole('button', { name: 'React', exact: true }).click();
    await page.getByLabel('raw', { exact: true }).waitFor();
    await expectInert('react result');
    await page.goto(`${run.url}/console/proxies/${ids.proxy}`);
    await page.getByLabel('Invoke with API key').fill(tokenKey);
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByLabel('Response body').waitFor();
    await expectInert('proxy answer');
  });

  it('audit log messages and entries', async () => {
    await openArea(page, 'Audit log');
    await page.locator('tbody tr').first().waitFor();
    await page.getByRole('button', { name: 'Show entry 1', exact: true }).click();
    await expectInert('audit log', false);
  });

  describe('accessibility (axe): no serious or critical violation', () => {
    const pages: Array<[string, string]> = [
      ['/tokens', 'Tokens'],
      ['/tokens/new', 'New token'],
      ['/applications', 'Applications'],
      ['/applications/new', 'New application'],
      ['/reactor-formulas', 'Reactor formulas'],
      ['/reactor-formulas/new', 'New formula'],
      ['/reactors', 'Reactors'],
      ['/reactors/new', 'New reactor'],
      ['/proxies', 'Proxies'],
      ['/proxies/new', 'New proxy'],
      ['/webhooks', 'Webhooks'],
      ['/webhooks/new', 'New webhook'],
      ['/audit-log', 'Audit log'],
      ['/tenant', 'Tenant'],
    ];

    async function audit(where: string): Promise<void> {
      await page.waitForFunction(() => !document.querySelector('.loading'));
      const violations = await page.evaluate(async () => {
        const axe = (window as any).axe;
        const result = await axe.run(document, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
          resultTypes: ['violations'],
        });
        return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')) }));
      });
      const blocking = violations
        .filter((violation: { impact: string }) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation: { id: string; impact: string; targets: string[] }) => `${where}: ${violation.id} (${violation.impact}) at ${violation.targets.join(', ')}`);
      expect(blocking).toEqual([]);
    }

    it('the sign-in page', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      await audit('sign-in');
    });

    it('every area, its detail views and its forms (light theme)', async () => {
      await signIn(page, run.url);
      for (const [path, heading] of pages) {
        await visit(path);
        await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        await audit(path);
      }
      for (const path of [`/applications/${ids.application}`, `/reactor-formulas/${ids.formula}`, `/reactors/${ids.reactor}`, `/proxies/${ids.proxy}`, `/webhooks/${ids.webhook}`]) {
        await visit(path);
        await page.locator('main h1', { hasNotText: /^(Application|Formula|Reactor|Proxy|Webhook)$/ }).waitFor();
        await audit(path);
      }
    });

    it('the dark theme', async () => {
      await page.emulateMedia({ colorScheme: 'dark' });
      for (const path of ['/applications', `/reactors/${ids.reactor}`, '/tenant']) {
        await visit(path);
        await page.locator('main h1', { hasNotText: /^Reactor$/ }).waitFor();
        await audit(`${path} (dark)`);
      }
      await signIn(page, run.url, tokenKey);
      await page.getByText('2 tokens found').waitFor();
      await audit('/tokens (dark)');
    });
  });
});
