// Each page's main flow in a real browser, against the built service, as an operator uses it: search and change
// tokens, create applications and see their key once, write a formula, run a reactor, try a proxy, read the audit log,
// rename and delete the tenant. With CONSOLE_SCREENSHOTS set, it also takes the pictures of docs/console.md.
import type { Page } from 'playwright-core';
import { LocalHttpServer, startLocalHttpServer } from '../support/local-http-server';
import { ConsoleRun, openArea, screenshot, signIn, startConsole } from './console-harness';

const FORMULA_CODE = `module.exports = async function ({ args, configuration }) {
  return { raw: { last4: String(args.card.number).slice(-4), mode: configuration.mode } };
};`;

describe('the web console: every page’s main flow', () => {
  let run: ConsoleRun;
  let destination: LocalHttpServer;
  let page: Page;
  let problems: string[];
  let operatorKey: string;
  let ssnId: string;

  beforeAll(async () => {
    destination = await startLocalHttpServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ echoed: JSON.parse(request.body || '{}'), path: request.path }));
    });
    run = await startConsole({ VAULT_PROXY_ALLOWED_HOSTS: destination.host, VAULT_WEBHOOK_ALLOWED_HOSTS: destination.host });
    // An application that works with tokens: general data revealed, PII and cards masked.
    const tokenPermissions = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete', 'token:use'];
    const operator = await run.call('POST', '/applications', {
      name: 'support-desk',
      type: 'private',
      permissions: tokenPermissions,
      rules: [
        { priority: 1, container: '/general/', transform: 'reveal', permissions: tokenPermissions },
        { priority: 2, container: '/', transform: 'mask', permissions: tokenPermissions },
      ],
    });
    operatorKey = operator.key;
    const as = { key: operatorKey };
    ssnId = (await run.call('POST', '/tokens', { type: 'social_security_number', data: '078-05-1120', metadata: { customer: 'acme' } }, as)).id;
    await run.call('POST', '/tokens', { type: 'card_number', data: '4111111111111111', metadata: { customer: 'acme' } }, as);
    await run.call('POST', '/tokens', { type: 'token', data: { plan: 'gold' }, metadata: { customer: 'globex' } }, as);
    ({ page, problems } = await run.newPage());
  }, 60_000);
  afterAll(async () => {
    await run?.close();
    await destination?.close();
  }, 30_000);
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  const errorOf = (label: string) => page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-errors');

  describe('Tokens', () => {
    beforeAll(() => signIn(page, run.url, operatorKey));

    it('searches with the query language: results as the key’s rules show them, paginated', async () => {
      await page.getByText('Query syntax and examples').click();
      await page.getByRole('button', { name: 'metadata.customer:acme AND NOT type:token' }).click();
      await page.getByText('2 tokens found').waitFor();
      const rows = page.locator('tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await page.locator('tbody').textContent()).toContain('XXX-XX-1120');
      expect(await page.locator('tbody').textContent()).toContain('XXXXXXXXXXXX1111');
      await page.getByLabel('Query', { exact: true }).fill('');
      await page.getByLabel('Per page').selectOption('10');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('3 tokens found').waitFor();
      // Plain tokens under /general/ are revealed: the JSON data exactly as the API returned it.
      expect(await page.locator('tbody').textContent()).toContain('{"plan":"gold"}');
      await page.getByText('Query syntax and examples').click();
      await screenshot(page, 'tokens');
    });

    it('shows a bad query’s error next to the query field', async () => {
      await page.getByLabel('Query', { exact: true }).fill('type:card_number customer');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await errorOf('Query').waitFor();
      expect(await errorOf('Query').textContent()).toMatch(/AND|OR/);
    });

    it('opens a token, edits it with a merge patch, and deletes it after confirming', async () => {
      await page.getByLabel('Query', { exact: true }).fill(`id:${ssnId}`);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('link', { name: ssnId }).click();
      await page.getByRole('heading', { name: 'Token', level: 1 }).waitFor();
      expect(await page.locator('.facts').textContent()).toContain('XXX-XX-1120');
      await page.getByRole('link', { name: 'Edit' }).click();
      await page.getByLabel('Merge patch (JSON)').fill('{"metadata": {"customer": "acme", "tier": "vip"}}');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Token', level: 1 }).waitFor();
      await page.getByText('"tier": "vip"').waitFor();
      await screenshot(page, 'token');
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByRole('dialog').count()).toBe(0);
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete token' }).click();
      await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
      await run.call('GET', `/tokens/${ssnId}`, undefined, { key: operatorKey, expect: 404 });
    });

    it('creates a token, naming the field the API refuses', async () => {
      await page.getByRole('link', { name: 'New token' }).click();
      await page.getByLabel('Type').selectOption('card_number');
      await page.getByLabel('Data', { exact: true }).fill('4111111111111112');
      await page.getByRole('button', { name: 'Create token' }).click();
      await errorOf('Data').waitFor();
      await page.getByLabel('Data', { exact: true }).fill('4242424242424242');
      await page.getByText('More settings').click();
      await page.getByLabel('Metadata (JSON object)').fill('{"customer": "initech"}');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('heading', { name: 'Token', level: 1 }).waitFor();
      expect(await page.locator('.facts').textContent()).toContain('XXXXXXXXXXXX4242');
      await page.getByRole('button', { name: 'Sign out' }).click();
    });
  });

  describe('management pages', () => {
    beforeAll(() => signIn(page, run.url));

    it('Applications: creates one with grouped permissions and a rule, shows its key once, regenerates and deletes it', async () => {
      await openArea(page, 'Applications');
      expect(await page.locator('tbody').textContent()).toContain('support-desk');
      await page.getByRole('link', { name: 'New application' }).click();
      await page.getByLabel('Name').fill('billing-service');
      const tokenGroup = page.getByRole('group', { name: 'token permissions' }).first();
      await tokenGroup.getByLabel('token:read').check();
      await tokenGroup.getByLabel('token:search').check();
      await page.getByRole('button', { name: 'Add a rule' }).click();
      const rule = page.getByRole('group', { name: 'Rule 1' });
      await rule.getByLabel('Container').fill('pii');
      await rule.getByLabel('Transform').selectOption('reveal');
      await rule.getByLabel('token:read').check();
      await page.getByRole('button', { name: 'Create application' }).click();
      await rule.locator('.field-errors').first().waitFor();
      expect(await rule.locator('.field', { has: page.getByLabel('Container') }).locator('.field-errors').textContent()).toMatch(/container/i);
      await screenshot(page, 'application-new', { fullPage: true });
      await rule.getByLabel('Container').fill('/pii/');
      await page.getByRole('button', { name: 'Create application' }).click();
      const key = page.getByLabel('API key', { exact: true });
      await key.waitFor();
      const issued = (await key.textContent())!;
      const app = (await run.call('GET', '/applications?size=100')).data.find((a: any) => a.name === 'billing-service');
      await run.call('GET', '/permissions', undefined, { key: issued });
      await page.getByRole('button', { name: 'Copy key' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(issued);
      await screenshot(page, 'application');
      await page.getByRole('button', { name: 'I have stored it' }).click();
      expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'Regenerate key' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Regenerate key' }).click();
      await page.getByLabel('API key', { exact: true }).waitFor();
      expect(await page.getByLabel('API key', { exact: true }).textContent()).not.toBe(issued);
      await run.call('GET', '/permissions', undefined, { key: issued, expect: 401 });
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete application' }).click();
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      await run.call('GET', `/applications/${app.id}`, undefined, { expect: 404 });
    });

    it('Reactor formulas: writes one with its contracts, errors next to the field they name', async () => {
      await openArea(page, 'Reactor formulas');
      await page.getByRole('link', { name: 'New formula' }).click();
      await page.getByLabel('Name').fill('card-check');
      await page.getByLabel('Description').fill('Reads the last four digits of a card.');
      await page.getByLabel('Code').fill('module.exports = ;');
      await page.getByRole('button', { name: 'Add a setting' }).click();
      await page.getByRole('button', { name: 'Add a setting' }).click();
      const settings = page.getByRole('group', { name: /^Configuration \d/ });
      await settings.nth(0).getByLabel('Name').fill('mode');
      await settings.nth(1).getByLabel('Name').fill('mode');
      await page.getByRole('button', { name: 'Add a parameter' }).click();
      const parameter = page.getByRole('group', { name: 'Request parameters 1' });
      await parameter.getByLabel('Name').fill('card.number');
      await page.getByRole('button', { name: 'Create formula' }).click();
      await settings.nth(1).locator('.field-errors').waitFor();
      await page.getByRole('button', { name: 'Remove setting 2' }).click();
      await page.getByRole('button', { name: 'Create formula' }).click();
      await errorOf('Code').waitFor();
      // The code editor: Tab indents instead of leaving the field.
      const code = page.getByLabel('Code');
      await code.fill('');
      await code.focus();
      await page.keyboard.press('Tab');
      expect(await code.inputValue()).toBe('  ');
      await code.fill(FORMULA_CODE);
      await page.getByRole('button', { name: 'Create formula' }).click();
      await page.getByRole('heading', { name: 'card-check', level: 1 }).waitFor();
      expect(await page.locator('main').textContent()).toContain('card.number');
      await screenshot(page, 'reactor-formula');
    });

    it('Reactors: creates one from the formula with a generated configuration form, and reacts', async () => {
      await page.getByRole('link', { name: 'Create a reactor' }).click();
      await page.getByRole('heading', { name: 'New reactor', level: 1 }).waitFor();
      await page.getByLabel('Name').fill('card-check-live');
      await page.getByLabel('mode', { exact: true }).fill('live');
      await page.getByRole('button', { name: 'Create reactor' }).click();
      await page.getByRole('heading', { name: 'card-check-live', level: 1 }).waitFor();
      await page.getByLabel('Args (JSON)').fill('{"card": {"number": "4242424242424242"}}');
      // A management key reads reactors; invoking one takes a private application's key with token:use.
      await page.getByRole('button', { name: 'React', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'token:use' }).waitFor();
      await page.getByLabel('Invoke with API key').fill(operatorKey);
      await page.getByRole('button', { name: 'React', exact: true }).click();
      const raw = page.getByLabel('raw', { exact: true });
      await raw.waitFor();
      expect(JSON.parse((await raw.textContent())!)).toEqual({ last4: '4242', mode: 'live' });
      expect(JSON.parse((await page.getByLabel('tokens', { exact: true }).textContent())!)).toBeNull();
      await screenshot(page, 'reactor', { fullPage: true });
      await page.getByLabel('Args (JSON)').fill('{"card": {}}');
      await page.getByRole('button', { name: 'React', exact: true }).click();
      await errorOf('Args (JSON)').waitFor();
      expect(await errorOf('Args (JSON)').textContent()).toContain('args.card.number');
      await openArea(page, 'Reactors');
      expect(await page.locator('tbody').textContent()).toContain('card-check-live');
    });

    it('Proxies: creates one with a transform and tries it', async () => {
      await openArea(page, 'Proxies');
      await page.getByText('No proxy yet.').waitFor();
      await page.getByRole('link', { name: 'New proxy' }).click();
      await page.getByLabel('Name').fill('payments');
      await page.getByLabel('Destination URL').fill(destination.url('/api'));
      await page.getByRole('button', { name: 'Add a transform' }).nth(1).click();
      const transform = page.getByRole('group', { name: 'Response transforms 1' });
      await transform.getByLabel('Type').selectOption('mask');
      await transform.getByLabel('JSON paths').fill('$.echoed.card');
      await page.getByRole('button', { name: 'Create proxy' }).click();
      await page.getByRole('heading', { name: 'payments', level: 1 }).waitFor();
      await page.getByLabel('Path and query').fill('/charges');
      await page.getByLabel('Body').fill('{"card": "4242424242424242"}');
      await page.getByLabel('Invoke with API key').fill(operatorKey);
      await page.getByRole('button', { name: 'Send request' }).click();
      const body = page.getByLabel('Response body');
      await body.waitFor();
      expect(JSON.parse((await body.textContent())!)).toEqual({ echoed: { card: 'XXXXXXXXXXXX4242' }, path: '/api/charges' });
      await screenshot(page, 'proxy', { fullPage: true });
    });

    it('Webhooks: creates one for chosen event types, shows its secret once, and lists its deliveries', async () => {
      await openArea(page, 'Webhooks');
      await page.getByText('No webhook yet.').waitFor();
      await page.getByRole('link', { name: 'New webhook' }).click();
      await page.getByLabel('Name').fill('ledger-sync');
      await page.getByLabel('URL').fill(destination.url('/hooks'));
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.locator('fieldset', { hasText: 'Event types' }).locator('.field-errors').waitFor();
      await page.getByLabel('application.created').check();
      await page.getByLabel('token.created').check();
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.getByLabel('Signing secret').waitFor();
      await run.call('POST', '/applications', { name: 'webhook-witness', type: 'private', permissions: ['token:read'] });
      const delivered = page.locator('tbody tr', { hasText: 'application.created' }).filter({ hasText: 'delivered' });
      for (let attempt = 0; attempt < 40 && (await delivered.count()) === 0; attempt++) {
        await page.waitForTimeout(250);
        await page.getByRole('button', { name: 'Refresh' }).click();
      }
      await delivered.first().waitFor();
      expect(destination.received.some((request) => request.path === '/hooks')).toBe(true);
      await screenshot(page, 'webhook');
      await openArea(page, 'Webhooks');
      expect(await page.locator('tbody').textContent()).toContain('ledger-sync');
    });

    it('Audit log: filters by entity type and shows an entry', async () => {
      await openArea(page, 'Audit log');
      await page.locator('tbody tr').first().waitFor();
      await page.getByLabel('Entity type').selectOption('application');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/entity_type=application/);
      await page.locator('tbody tr').first().waitFor();
      const types = await page.locator('tbody tr td:nth-child(3)').allTextContents();
      expect(types.length).toBeGreaterThan(0);
      expect(types.every((text) => text.startsWith('application'))).toBe(true);
      await page.getByRole('button', { name: 'Show entry 1', exact: true }).click();
      await page.getByRole('region', { name: 'Audit entry' }).waitFor();
      await page.getByLabel('Entity id').fill('not-a-uuid');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await errorOf('Entity id').waitFor();
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('button', { name: 'Show entry 1', exact: true }).click();
      await screenshot(page, 'audit-log');
    });

    it('Tenant: renames it, and deletes it only after the name is typed', async () => {
      await openArea(page, 'Tenant');
      // The usage report: live tokens by type drawn as bars, and the month's active tokens.
      const chart = page.getByRole('img', { name: /^Tokens by type/ });
      await chart.waitFor();
      expect(await chart.getAttribute('aria-label')).toBe('Tokens by type: card_number: 2, token: 1');
      expect(Number(await page.locator('.stat').textContent())).toBeGreaterThanOrEqual(3);
      await page.getByLabel('Tenant name').fill('acme-production');
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByText('Saved.').waitFor();
      expect((await run.call('GET', '/tenants/self')).name).toBe('acme-production');
      await screenshot(page, 'tenant');
      await page.getByRole('button', { name: 'Delete tenant' }).click();
      const dialog = page.getByRole('dialog');
      const confirm = dialog.getByRole('button', { name: 'Delete tenant for ever' });
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel(/to confirm/).fill('acme');
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel(/to confirm/).fill('acme-production');
      await confirm.click();
      await page.getByLabel('API key').waitFor();
      await page.getByText('was deleted').waitFor();
      await run.call('GET', '/permissions', undefined, { expect: 401 });
    });
  });
});
