// The console's browser suites: the built service as a process (as a user starts it), Debian's chromium driven by
// playwright-core, and helpers to seed data through the public API and to sign in.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { ApiProcess, startApiProcess } from '../support/processes';

export const BOOTSTRAP_KEY = 'console-test-bootstrap-key-0123456789-abcdef';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Without the background-networking flags Chromium keeps opening connections that a closed network refuses. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots for docs/console.md are written only when asked: `CONSOLE_SCREENSHOTS=docs/console npx jest test/console`. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

export interface ConsoleRun {
  url: string;
  service: ApiProcess;
  browser: Browser;
  /** Calls the API as a client would (the bootstrap key unless another is given); throws on a status it did not expect. */
  call<T = any>(method: string, path: string, body?: unknown, options?: { key?: string; expect?: number }): Promise<T>;
  newPage(options?: { bypassCSP?: boolean; colorScheme?: 'light' | 'dark' }): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  close(): Promise<void>;
}

export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-console-'));
  const service = await startApiProcess({ VAULT_DATA_DIR: dataDir, VAULT_BOOTSTRAP_KEY: BOOTSTRAP_KEY, VAULT_LOG_LEVEL: 'warn', ...env });
  await waitForReady(service.url);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const call = async (method: string, path: string, body?: unknown, options: { key?: string; expect?: number } = {}) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        'SVC-API-KEY': options.key ?? BOOTSTRAP_KEY,
        ...(body === undefined ? {} : { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const expected = options.expect ?? (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200);
    if (response.status !== expected) {
      const log = response.status >= 500 ? `\n--- the service's last output ---\n${service.output().slice(-3000)}` : '';
      throw new Error(`${method} ${path}: ${response.status} ${text}${log}`);
    }
    return text ? JSON.parse(text) : undefined;
  };
  return {
    url: service.url,
    service,
    browser,
    call,
    async newPage(options = {}) {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 860 },
        bypassCSP: options.bypassCSP ?? false,
        colorScheme: options.colorScheme ?? 'light',
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      const page = await context.newPage();
      page.setDefaultTimeout(8000);
      const problems: string[] = [];
      // Every CSP violation, uncaught error and console error is a finding: the suites expect none.
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      // A 4xx answer is logged by the browser as a failed resource load; the suites check those answers themselves.
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          (window as any).__cspViolations = [...((window as any).__cspViolations ?? []), `${event.violatedDirective} ${event.blockedURI}`];
        });
      });
      return { context, page, problems };
    },
    async close() {
      await browser.close().catch(() => undefined);
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitForReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const status = await fetch(`${url}/health/ready`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the service did not become ready');
}

export async function signIn(page: Page, url: string, key = BOOTSTRAP_KEY): Promise<void> {
  await page.goto(`${url}/console`);
  // Signed in already (a suite's earlier step stopped half-way): start from a fresh session.
  if (await page.evaluate(() => sessionStorage.length > 0)) {
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
  }
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Areas' }).waitFor();
}

/** Goes to an area through the navigation, as a user would, and waits for its heading. */
export async function openArea(page: Page, label: string, heading = label): Promise<void> {
  await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
}

/** Saves a screenshot for the docs when CONSOLE_SCREENSHOTS names a folder; otherwise does nothing. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? false });
}
