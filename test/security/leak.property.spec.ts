// The leak property: API.md's one promise ("What a write may reveal") checked against the real HTTP API, in-process.
//
//   No response ever carries a token's plaintext, or anything derived from its data, beyond what the calling
//   application is entitled to see of that token, unless the application sent that data itself.
//
// Entitlement of an application for a token (test/security/leak/model.ts): the most revealing transform among the rules
// that apply to the token (API.md "which rule applies") for each token permission that shows a token (create, read,
// update, search; DELETE answers with no body), with reveal > mask > redact > none. Knowledge accrues: before every
// request, each application learns what its current entitlement shows (reveal: the plaintext and every secret derived
// from it; mask: the evaluated mask), and keeps it (once revealed, known forever). An application's own container move
// without new data never raises its entitlement, and a mask re-derived without data by a caller not entitled to reveal
// entitles no one (the API must refuse both; if it does not, the model does not reward it). Data an application sends
// (create, PATCH `data`) is known to it; a search guess is known to it too, but entitles it to no token view.
//
// Checked on every response (success and error bodies alike, raw text plus headers): for every token of the run and every
// version of its data the caller does not know, none of its secrets (plaintext, letters-and-digits form, string leaves
// and nested objects, at least 6 characters) and none of its evaluated masks (at least 6 characters, showing a letter or
// digit) appears unless the caller knows that string; every token view's `data` is allowed only when the caller's
// entitlement before the request is reveal, or mask and it equals the evaluated mask, or the caller supplied it; a
// deduplicated answer (200) must be a token one of the caller's token:create rules covers. No 5xx ever.
// Statuses the model can predict from API.md are asserted too: deduplication (201 and a new id when no token:create rule
// of the caller covers the match), PATCH of mask/search_indexes/fingerprint_expression without data under a non-reveal
// token:update rule (403), PATCH of containers without data that raises the caller's entitlement (403), 403/404s of
// permissions and rules, validation 400s; and so are search results and each view's transform.
//
// Size: the default run (npm test) generates 40 cases of up to 20 commands, each on a fresh tenant with 2-4 generated
// private applications and 1-4 initial tokens. VAULT_LEAK_RUNS=<n> runs n cases of up to 40 commands instead;
// VAULT_LEAK_SEED=<seed> replays a seed. Exploration only, never in CI: VAULT_LEAK_EXCLUDE=dedupe,derive,deriving-patch,move
// leaves generator features out (to find counterexamples other than a known one being fixed); VAULT_LEAK_INVARIANT_ONLY=1
// fails a run on the leak invariant and 5xx only, not on predicted statuses, search results or views (to show what the
// invariant alone catches). The run prints the number of generated cases and commands, the requests they made and the
// time taken.
import fc from 'fast-check';
import { createApplication, startTestApp, TestApp, createTenant, asKey } from '../support/test-app';
import { withoutIdsAndTimes } from '../support/random-parts';
import { appsArb } from './leak/arbitraries';
import { commandsArb, initialTokensArb, seedTokens } from './leak/commands';
import { stats, World } from './leak/world';

const ALL = ['token:create', 'token:read', 'token:update', 'token:search', 'token:delete'];
const LARGE = process.env.VAULT_LEAK_RUNS ? Number(process.env.VAULT_LEAK_RUNS) : undefined;
const NUM_RUNS = LARGE ?? 40;
const MAX_COMMANDS = LARGE ? 40 : 20;
const SEED = process.env.VAULT_LEAK_SEED ? Number(process.env.VAULT_LEAK_SEED) : undefined;
const EXCLUDE = new Set((process.env.VAULT_LEAK_EXCLUDE ?? '').split(',').filter(Boolean));
/** Shrinking a failure can take long; it stops here and reports the smallest counterexample found so far. */
const TIME_LIMIT_MS = LARGE ? 15 * 60_000 : 4 * 60_000;

describe('the vault never reveals more than the caller is entitled to (leak property)', () => {
  let test: TestApp;

  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test.close());

  const newTenant = async () => {
    const tenant = await createTenant(test, `repro-${Date.now()}`, { type: 'operator', id: 'leak-repro' }, 'leak-repro');
    return tenant.management_key;
  };
  const app = async (mgmt: string, name: string, body: Record<string, unknown>) =>
    (await createApplication(test, { name, type: 'private', ...body }, mgmt)).key;
  const as = (key: string) => asKey(test, key);
  const fullApp = (mgmt: string) =>
    app(mgmt, 'full', { permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] });

  describe("the issue's reproductions", () => {
    it('1. deduplication never returns a token that no token:create rule of the caller covers', async () => {
      const mgmt = await newTenant();
      const full = await fullApp(mgmt);
      const prober = await app(mgmt, 'pii-prober', {
        permissions: ['token:create', 'token:read'],
        rules: [{ priority: 1, container: '/pii/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
      });
      const hidden = await as(full).post('/tokens', {
        type: 'token',
        data: { customer_id: 'cust_42', ssn: '111-22-3333', note: 'TOP-SECRET' },
        fingerprint_expression: '{{ data.customer_id }}',
        containers: ['/general/high/'],
      });
      expect(hidden.status).toBe(201);

      const probe = await as(prober).post('/tokens', {
        type: 'token',
        data: 'cust_42',
        fingerprint_expression: '{{ data }}',
        deduplicate_token: true,
        containers: ['/pii/'],
      });
      for (const secret of ['111-22-3333', '111223333', 'TOP-SECRET']) expect(probe.text).not.toContain(secret);
      expect(probe.status).toBe(201);
      expect(probe.body.id).not.toBe(hidden.body.id);
      expect(probe.body.data).toBe('cust_42');
      expect(probe.body.fingerprint).toBe(hidden.body.fingerprint);
      expect((await as(prober).get(`/tokens/${hidden.body.id}`)).status).toBe(404);

      // Control: where the caller's token:create rule covers the existing token, deduplication still returns it.
      const again = await as(prober).post('/tokens', {
        type: 'token',
        data: 'cust_42',
        fingerprint_expression: '{{ data }}',
        deduplicate_token: true,
        containers: ['/pii/'],
      });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(probe.body.id);
    });

    it.each(['{{ data }}', '{{ data | date: 1 }}', "{{ data | remove: '-' }}", '{{ data | slice: 0, 5 }}'])(
      '2. a mask-only application cannot change the mask to %s (403, never the plaintext)',
      async (mask) => {
        const mgmt = await newTenant();
        const full = await fullApp(mgmt);
        const masker = await app(mgmt, 'masker', { permissions: ['token:read', 'token:update'] });
        const ssn = await as(full).post('/tokens', { type: 'social_security_number', data: '457-82-9163' });
        expect(ssn.status).toBe(201);

        const patched = await as(masker).patch(`/tokens/${ssn.body.id}`, { mask });
        for (const secret of ['457-82-9163', '457829163', '457-8', '45782']) expect(withoutIdsAndTimes(patched.text)).not.toContain(secret);
        expect(patched.status).toBe(403);
        expect(patched.text).toContain('mask');

        const read = await as(masker).get(`/tokens/${ssn.body.id}`);
        expect(read.status).toBe(200);
        expect(read.body.data).toBe('XXX-XX-9163');
        expect(read.body.mask).toBe('{{ data | reveal_last: 4 }}');
      },
    );

    it('3. a redactor cannot re-derive search indexes or the fingerprint to use search as an oracle', async () => {
      const mgmt = await newTenant();
      const full = await fullApp(mgmt);
      const redactor = await app(mgmt, 'redactor', {
        permissions: ['token:read', 'token:update', 'token:search'],
        rules: [{ priority: 1, container: '/', transform: 'redact', permissions: ['token:read', 'token:update', 'token:search'] }],
      });
      const ssn = await as(full).post('/tokens', { type: 'social_security_number', data: '555-38-1746' });
      const id = ssn.body.id;

      const indexes = await as(redactor).patch(`/tokens/${id}`, { search_indexes: ['{{ data | slice: 0, 3 }}'] });
      expect(indexes.status).toBe(403);
      expect(indexes.text).toContain('search_indexes');
      const fingerprint = await as(redactor).patch(`/tokens/${id}`, { fingerprint_expression: '{{ data | slice: 0, 3 }}' });
      expect(fingerprint.status).toBe(403);
      expect(fingerprint.text).toContain('fingerprint_expression');

      const oracle = await as(redactor).post('/tokens/search', { query: `data:555 AND id:${id}` });
      expect(oracle.status).toBe(200);
      expect(oracle.body.pagination.total_items).toBe(0);
      // Control: the type's own indexes still answer a guess (what search is for), with the data redacted.
      const lastFour = await as(redactor).post('/tokens/search', { query: `data:1746 AND id:${id}` });
      expect(lastFour.body.data.map((t: { id: string }) => t.id)).toEqual([id]);
      expect('data' in lastFour.body.data[0]).toBe(false);
      for (const r of [indexes, fingerprint, oracle, lastFour]) expect(r.text).not.toContain('555-38-1746');
    });

    it.each<[string, string[] | null]>([
      ['into its reveal container', ['/pii/']],
      ['by adding a container under its reveal rule', ['/general/', '/pii/high/']],
      ['by resetting containers to the type default (/pii/high/)', null],
    ])('4. a container move cannot upgrade a mask view into reveal: %s', async (_label, containers) => {
      const mgmt = await newTenant();
      const full = await fullApp(mgmt);
      const mover = await app(mgmt, 'mover', {
        permissions: ['token:read', 'token:update'],
        rules: [
          { priority: 1, container: '/pii/', transform: 'reveal', permissions: ['token:read'] },
          { priority: 2, container: '/', transform: 'mask', permissions: ['token:read', 'token:update'] },
        ],
      });
      const ssn = await as(full).post('/tokens', { type: 'social_security_number', data: '623-41-8857', containers: ['/general/'] });
      const id = ssn.body.id;
      expect((await as(mover).get(`/tokens/${id}`)).body.data).toBe('XXX-XX-8857');

      const moved = await as(mover).patch(`/tokens/${id}`, { containers });
      expect(moved.text).not.toContain('623-41-8857');
      expect(moved.status).toBe(403);
      const read = await as(mover).get(`/tokens/${id}`);
      expect(read.text).not.toContain('623-41-8857');
      expect(read.body).toMatchObject({ data: 'XXX-XX-8857', containers: ['/general/'] });

      // Control: a move that shows nothing more is allowed.
      const sideways = await as(mover).patch(`/tokens/${id}`, { containers: ['/x/'] });
      expect(sideways.status).toBe(200);
      expect(sideways.body).toMatchObject({ data: 'XXX-XX-8857', containers: ['/x/'] });
    });
    it.each(['token:delete', 'token:use'])(
      '4. a reveal rule for %s (which shows no data) does not license a move that upgrades the read view',
      async (decoy) => {
        const mgmt = await newTenant();
        const full = await fullApp(mgmt);
        const mover = await app(mgmt, 'decoy-mover', {
          permissions: ['token:read', 'token:update', decoy],
          rules: [
            { priority: 1, container: '/', transform: 'reveal', permissions: [decoy] },
            { priority: 2, container: '/pii/', transform: 'mask', permissions: ['token:read', 'token:update'] },
            { priority: 3, container: '/', transform: 'reveal', permissions: ['token:read', 'token:update'] },
          ],
        });
        const ssn = await as(full).post('/tokens', { type: 'social_security_number', data: '623-41-8857' });
        const id = ssn.body.id;
        expect((await as(mover).get(`/tokens/${id}`)).body.data).toBe('XXX-XX-8857');

        const moved = await as(mover).patch(`/tokens/${id}`, { containers: ['/general/'] });
        expect(moved.text).not.toContain('623-41-8857');
        expect(moved.status).toBe(403);
        const read = await as(mover).get(`/tokens/${id}`);
        expect(read.body).toMatchObject({ data: 'XXX-XX-8857', containers: ['/pii/high/'] });
      },
    );
  });

  it(
    `holds for generated applications, tokens and command sequences (${NUM_RUNS} cases of up to ${MAX_COMMANDS} commands)`,
    async () => {
      const commandsPerExecution: number[] = [];
      const started = Date.now();
      const commandArb = commandsArb({ maxCommands: MAX_COMMANDS, exclude: EXCLUDE });
      const property = fc.asyncProperty(appsArb, initialTokensArb, commandArb, async (apps, initialTokens, commands) => {
        stats.cases++;
        const before = stats.commands;
        try {
          await fc.asyncModelRun(async () => {
            const world = await World.create(test, apps);
            await seedTokens(world, initialTokens);
            return { model: world, real: world };
          }, commands);
        } finally {
          commandsPerExecution.push(stats.commands - before);
        }
      });
      const details = await fc.check(property, {
        numRuns: NUM_RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        interruptAfterTimeLimit: TIME_LIMIT_MS,
      });
      const generated = commandsPerExecution.slice(0, details.numRuns).reduce((a, b) => a + b, 0);
      const summary =
        `leak property: ${details.numRuns} generated cases, ${generated} generated commands` +
        (details.failed ? `, ${details.numShrinks} shrinks (${stats.cases} executions, ${stats.commands} commands in all)` : '') +
        `, ${stats.requests} checked requests + ${stats.auditorRequests} auditor reads, ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `seed ${details.seed}, statuses ${JSON.stringify(stats.statuses)}, rules tested ${JSON.stringify(stats.branches)}`;
      console.log(summary);
      if (details.failed) {
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(`${summary}\n${fc.defaultReportMessage({ ...details, errorInstance: null } as typeof details)}\n\n${error}`);
      }
      expect(details.numRuns).toBe(NUM_RUNS);
    },
    TIME_LIMIT_MS + 120_000,
  );
});
