import type { CodeCheckResult, FormulaCodeChecker } from '@vault/application';
import { DomainError } from '@vault/domain';
import { ChildProcessCodeChecker } from './child-process-code-checker';
import { ChildProcessReactorRuntime, type ChildProcessReactorRuntimeOptions } from './child-process-reactor-runtime';

const LIMITS = { timeoutMs: 100, memoryLimitMb: 32 };
const KILL_GRACE_MS = 500;
/** Past the limit and the grace: a child's exit and the IPC round trip on a loaded 2-core machine. */
const SLACK_MS = 1500;

const runtimes: ChildProcessReactorRuntime[] = [];
const checkerWith = (options: Partial<ChildProcessReactorRuntimeOptions> = {}): { checker: FormulaCodeChecker; runtime: ChildProcessReactorRuntime } => {
  const runtime = new ChildProcessReactorRuntime({ timeoutMs: 1000, memoryLimitMb: 32, killGraceMs: KILL_GRACE_MS, ...options });
  runtimes.push(runtime);
  return { checker: new ChildProcessCodeChecker(runtime, LIMITS), runtime };
};
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});

const rejected = (result: CodeCheckResult): string => {
  if (result.ok) throw new Error('the code was accepted');
  return result.reason;
};

const NORMAL = 'module.exports = async ({ args }) => ({ raw: args });';

/** Top levels that keep a V8 built-in busy where isolated-vm's termination does not reach: timeout and dispose miss them. */
const STUCK: [string, string][] = [
  [
    'JSON.parse in a loop',
    "const s = JSON.stringify(Array.from({ length: 3e4 }, (_, i) => ({ a: i, b: 'x' + i }))); for (;;) JSON.parse(s); module.exports = async () => ({});",
  ],
  ['String#normalize in a loop', "const s = 'e\\u0301'.repeat(2e6); for (;;) s.normalize('NFC'); module.exports = async () => ({});"],
  [
    'Intl.Collator#compare in a loop',
    "const a = 'a'.repeat(3e6), b = 'a'.repeat(3e6 - 1) + 'b'; const c = new Intl.Collator('en'); for (;;) c.compare(a, b); module.exports = async () => ({});",
  ],
];

describe('ChildProcessCodeChecker', () => {
  it('answers as the in-process checker does', async () => {
    const { checker } = checkerWith();
    await expect(checker.check(NORMAL)).resolves.toEqual({ ok: true });
    expect(rejected(await checker.check('module.exports = 42'))).toMatch(/module\.exports must be an async function .*, not a number\.$/);
    expect(rejected(await checker.check('module.exports = async () => {'))).toMatch(/SyntaxError/);
    expect(rejected(await checker.check('for (;;) {}'))).toMatch(/^The code's top level did not finish within 100 ms/);
  });

  it.each(STUCK)('answers a top level of %s as failed within its limit and the grace, then checks a formula fine', async (_title, code) => {
    const { checker } = checkerWith();
    // A warm child, so that the time measured is the check's, not a child's start from the TypeScript sources.
    await expect(checker.check(NORMAL)).resolves.toEqual({ ok: true });
    const started = Date.now();
    const reason = rejected(await checker.check(code));
    const took = Date.now() - started;
    expect(reason).toBe(`The code's top level did not finish within ${LIMITS.timeoutMs} ms.`);
    expect(took).toBeLessThan(LIMITS.timeoutMs + KILL_GRACE_MS + SLACK_MS);
    await expect(checker.check(NORMAL)).resolves.toEqual({ ok: true });
  }, 30_000);

  it('holds at most half the slots: a reactor run answers while checks are stuck', async () => {
    // A long grace: the run needs a child of its own, which a loaded machine may take seconds to start from the sources.
    const { checker, runtime } = checkerWith({ concurrency: 2, killGraceMs: 10_000 });
    let checksEnded = 0;
    const stuck = [checker.check(STUCK[0][1]), checker.check(STUCK[0][1])].map((check) => check.finally(() => checksEnded++));
    const run = await runtime.run('module.exports = async ({ args }) => ({ raw: { n: args.n } });', { args: { n: 7 }, configuration: {} }, { tenantId: 't1' });
    expect(run).toMatchObject({ ok: true, raw: { n: 7 } });
    // The run did not wait for a stuck check's child to be killed.
    expect(checksEnded).toBe(0);
    for (const result of await Promise.all(stuck)) expect(rejected(result)).toMatch(/did not finish within 100 ms/);
  }, 30_000);

  it('lets 32 checks of one tenant at once wait their turn and pass, on the default pool', async () => {
    const { checker } = checkerWith();
    const results = await Promise.all(Array.from({ length: 32 }, () => checker.check(NORMAL, { tenantId: 't1' })));
    expect(results).toEqual(Array(32).fill({ ok: true }));
  }, 60_000);

  it("serves another tenant's checks while one tenant's burst fills its half of the check queue", async () => {
    const { checker } = checkerWith({ concurrency: 2, checkQueueSize: 4 });
    const settled = (check: Promise<CodeCheckResult>) =>
      check.then(
        (result) => ({ ok: result.ok }),
        (error: unknown) => error,
      );
    // t1: one running (a single check slot with concurrency 2), two waiting (its half of 4), the rest refused.
    const burst = Array.from({ length: 6 }, () => settled(checker.check(STUCK[0][1], { tenantId: 't1' })));
    const other = await Promise.all([checker.check(NORMAL, { tenantId: 't2' }), checker.check(NORMAL, { tenantId: 't2' })]);
    expect(other).toEqual([{ ok: true }, { ok: true }]);
    const outcomes = await Promise.all(burst);
    expect(outcomes.filter((outcome) => outcome instanceof DomainError)).toEqual([
      expect.objectContaining({ kind: 'unavailable', retryAfterSeconds: 2 }),
      expect.objectContaining({ kind: 'unavailable', retryAfterSeconds: 2 }),
      expect.objectContaining({ kind: 'unavailable', retryAfterSeconds: 2 }),
    ]);
    expect(outcomes.filter((outcome) => !(outcome instanceof DomainError))).toEqual([{ ok: false }, { ok: false }, { ok: false }]);
  }, 60_000);

  it('rejects as unavailable, with a time to retry, once its share of the check queue is full', async () => {
    const { checker } = checkerWith({ concurrency: 1, checkQueueSize: 2 });
    const held = [checker.check(STUCK[0][1], { tenantId: 't1' }), checker.check(STUCK[0][1], { tenantId: 't1' })];
    const refused = await checker.check(NORMAL, { tenantId: 't1' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 2 });
    expect((refused as DomainError).message).toBe("Too many of this tenant's formula code checks are waiting; try again later.");
    // The operator's import is a tenant of its own.
    await expect(checker.check(NORMAL)).resolves.toEqual({ ok: true });
    for (const result of await Promise.all(held)) expect(rejected(result)).toMatch(/did not finish/);
  }, 30_000);

  it('rejects as unavailable once the runtime is closed', async () => {
    const { checker, runtime } = checkerWith();
    await runtime.close();
    await expect(checker.check(NORMAL)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
