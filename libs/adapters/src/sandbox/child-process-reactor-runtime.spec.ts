import { readdirSync, readFileSync } from 'node:fs';
import type { ReactorResult } from '@vault/application';
import { ChildProcessReactorRuntime, type ChildProcessReactorRuntimeOptions } from './child-process-reactor-runtime';
import { startLocalHttpServer, type LocalHttpServer } from '@vault/test-support/local-http-server';

const runtimes: ChildProcessReactorRuntime[] = [];
const runtimeWith = (options: Partial<ChildProcessReactorRuntimeOptions> = {}) => {
  const runtime = new ChildProcessReactorRuntime({ timeoutMs: 1000, memoryLimitMb: 32, killGraceMs: 500, ...options });
  runtimes.push(runtime);
  return runtime;
};
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  expect(childPids()).toEqual([]);
});

const request = { args: {}, configuration: {} };
const TRIVIAL = 'module.exports = async ({ args }) => ({ raw: { echo: args.n } });';

const failure = (result: ReactorResult): string => {
  if (result.ok) throw new Error(`the run succeeded with ${JSON.stringify(result.raw)}`);
  if (result.kind !== 'failed') throw new Error(`the run was ${result.kind}: ${result.message}`);
  return result.message;
};

/**
 * Processes whose parent is this one and which run the reactor child's entry (Linux /proc): the runtime's children,
 * and no other process this one may have started.
 */
const childPids = (): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // The command name may hold spaces and parentheses: the fields after its closing parenthesis.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) return false;
        // A child that exited but was not yet reaped has an empty command line: it is still counted.
        const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return commandLine === '' || commandLine.includes('reactor-child');
      } catch {
        return false;
      }
    })
    .map(Number);

/** Each of these keeps a V8 built-in busy where isolated-vm's termination does not reach: timeout and dispose miss it. */
const STUCK: [string, string][] = [
  [
    'JSON.parse in a loop',
    "module.exports = async function () { const s = JSON.stringify(Array.from({ length: 3e4 }, (_, i) => ({ a: i, b: 'x' + i }))); for (;;) JSON.parse(s); };",
  ],
  ['String#normalize in a loop', "module.exports = async function () { const s = 'e\\u0301'.repeat(2e6); for (;;) s.normalize('NFC'); };"],
  [
    'Intl.Collator#compare in a loop',
    "module.exports = async function () { const a = 'a'.repeat(3e6), b = 'a'.repeat(3e6 - 1) + 'b'; const c = new Intl.Collator('en'); for (;;) c.compare(a, b); };",
  ],
  [
    'JSON.parse in a loop, from a function that is not async',
    "module.exports = function () { const s = JSON.stringify(Array.from({ length: 3e4 }, (_, i) => ({ a: i, b: 'x' + i }))); for (;;) JSON.parse(s); };",
  ],
];

describe('ChildProcessReactorRuntime runs the code in a child process', () => {
  it("answers SPEC's contract as the in-process runtime does", async () => {
    const runtime = runtimeWith();
    const code = `module.exports = async (req) => ({
      raw: { greeting: req.configuration.prefix + ' ' + req.args.name },
      tokenize: { name: { type: 'token', data: req.args.name } },
    });`;
    expect(await runtime.run(code, { args: { name: 'Ada' }, configuration: { prefix: 'Hello' } })).toEqual({
      ok: true,
      raw: { greeting: 'Hello Ada' },
      tokenize: { name: { type: 'token', data: 'Ada' } },
    });
    expect(failure(await runtime.run('module.exports = async () => { throw new Error("no card"); };', request))).toMatch(
      /^The formula threw: Error: no card/,
    );
    expect(failure(await runtime.run('module.exports = async () => { for (;;) {} };', request))).toMatch(/did not finish within 1000 ms/);
  });

  it('keeps at most `concurrency` children, reused from run to run', async () => {
    // Under Jest each child also carries a TypeScript compiler: on a loaded machine it holds more after a run than the
    // recycling bound for 32 MB runs, and each run would replace its child (as it should; not what this test is about).
    const runtime = runtimeWith({ concurrency: 2, recycleRssMb: 1024 });
    // Three tenants: one alone could hold only half the slots and half the queue.
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, n) => runtime.run(TRIVIAL, { args: { n }, configuration: {} }, { tenantId: `t${n % 3}` })),
    );
    expect(results.map((result) => result.ok && result.raw)).toEqual([0, 1, 2, 3, 4, 5].map((n) => ({ echo: n })));
    const pids = childPids();
    expect(pids.length).toBeLessThanOrEqual(2);
    await runtime.run(TRIVIAL, { args: { n: 6 }, configuration: {} });
    expect(childPids()).toEqual(pids);
  });

  it('replaces a recycled child only once it has exited: never more than `concurrency` processes, dying ones included', async () => {
    // A bound of 1 MB: every child is replaced after each of its runs.
    const runtime = runtimeWith({ concurrency: 2, recycleRssMb: 1 });
    let most = 0;
    const seen = new Set<number>();
    const watch = setInterval(() => {
      const pids = childPids();
      most = Math.max(most, pids.length);
      for (const pid of pids) seen.add(pid);
    }, 2);
    try {
      for (let round = 0; round < 2; round++) {
        const results = await Promise.all(
          Array.from({ length: 4 }, (_, n) => runtime.run(TRIVIAL, { args: { n }, configuration: {} }, { tenantId: `t${n % 2}` })),
        );
        expect(results.map((result) => result.ok && result.raw)).toEqual([0, 1, 2, 3].map((n) => ({ echo: n })));
      }
    } finally {
      clearInterval(watch);
    }
    // Children were replaced (more than two seen in all), yet never more than two at a time.
    expect(seen.size).toBeGreaterThan(2);
    expect(most).toBeLessThanOrEqual(2);
  }, 60_000);

  it('answers busy past the queue, and answers the queued runs once a slot is free', async () => {
    const runtime = runtimeWith({ concurrency: 1, queueSize: 1, timeoutMs: 400 });
    const [first, second, third] = await Promise.all([
      runtime.run('module.exports = async () => { for (;;) {} };', request),
      runtime.run(TRIVIAL, { args: { n: 2 }, configuration: {} }),
      runtime.run(TRIVIAL, { args: { n: 3 }, configuration: {} }),
    ]);
    expect(first).toMatchObject({ ok: false, kind: 'failed' });
    expect(second).toEqual({ ok: true, raw: { echo: 2 }, tokenize: null });
    expect(third).toMatchObject({ ok: false, kind: 'busy', retryAfterSeconds: 1 });
  });
});

describe('ChildProcessReactorRuntime holds the wall time where isolated-vm cannot', () => {
  it.each(STUCK)('%s: fails at the timeout plus the grace, and the slot serves the next run', async (_title, code) => {
    const runtime = runtimeWith({ concurrency: 1, timeoutMs: 1000, killGraceMs: 500 });
    await runtime.run(TRIVIAL, request); // the child is started: what follows is the run's time only
    const started = Date.now();
    expect(failure(await runtime.run(code, request))).toBe('The reactor did not finish within 1000 ms.');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await runtime.run(TRIVIAL, { args: { n: 1 }, configuration: {} })).toEqual({ ok: true, raw: { echo: 1 }, tokenize: null });
  });

  it('closes within a bound while a run is stuck, answering it and the queued ones busy', async () => {
    const runtime = runtimeWith({ timeoutMs: 60_000, concurrency: 1 });
    const stuck = runtime.run(STUCK[0][1], request);
    const queued = runtime.run(TRIVIAL, request);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const started = Date.now();
    await runtime.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await stuck).toMatchObject({ ok: false, kind: 'busy' });
    expect(await queued).toMatchObject({ ok: false, kind: 'busy' });
    expect(childPids()).toEqual([]);
    expect(await runtime.run(TRIVIAL, request)).toMatchObject({ ok: false, kind: 'busy' });
  });

  it('fails the run of a child that dies, and starts another for the next run', async () => {
    const runtime = runtimeWith({ concurrency: 1, timeoutMs: 20_000 });
    const spinning = runtime.run('module.exports = async () => { for (;;) {} };', request);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const [pid] = childPids();
    process.kill(pid, 'SIGKILL');
    expect(failure(await spinning)).toBe('The reactor stopped unexpectedly: its process ended.');
    expect(await runtime.run(TRIVIAL, { args: { n: 1 }, configuration: {} })).toEqual({ ok: true, raw: { echo: 1 }, tokenize: null });
    expect(childPids()).not.toContain(pid);
  });
});

describe('ChildProcessReactorRuntime bounds memory the isolate does not count', () => {
  it('kills a run whose ICU objects take the child past its memory bound, and serves the next run', async () => {
    const runtime = runtimeWith({ concurrency: 1, timeoutMs: 10_000, memoryLimitMb: 32 });
    // Each segmenter holds its break iterator and dictionaries in ICU, outside the isolate's heap: about 300 MB a second.
    const code = `module.exports = async function () {
      const held = [];
      for (let i = 0; ; i++) held.push(new Intl.Segmenter(['en', 'th', 'ja', 'zh', 'de'][i % 5], { granularity: ['word', 'sentence', 'grapheme'][i % 3] }));
    };`;
    const started = Date.now();
    expect(failure(await runtime.run(code, request))).toBe('The reactor used more than the 32 MB of memory it may use.');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await runtime.run(TRIVIAL, { args: { n: 1 }, configuration: {} })).toEqual({ ok: true, raw: { echo: 1 }, tokenize: null });
  });
});

describe('ChildProcessReactorRuntime fetches from the child under the same policy', () => {
  let server: LocalHttpServer;
  beforeAll(async () => {
    server = await startLocalHttpServer((_received, response) => void response.end('{"ok":true}'));
  });
  afterAll(() => server.close());

  it('reaches only the allowed hosts it was given, at most 64 times a run', async () => {
    const runtime = runtimeWith({ allowedHosts: [server.host] });
    const code = `module.exports = async () => {
      let answered = 0;
      for (let i = 0; i < 70; i++) {
        try { await fetch('${server.url('/n')}'); answered++; } catch (error) { return { raw: { answered, message: error.message } }; }
      }
      return { raw: { answered } };
    };`;
    const before = server.received.length;
    expect(await runtime.run(code, request)).toMatchObject({ ok: true, raw: { answered: 64, message: 'fetch: at most 64 fetches per invocation.' } });
    expect(server.received.length - before).toBe(64);
    expect(failure(await runtimeWith().run(`module.exports = async () => { await fetch('${server.url('/n')}'); };`, request))).toMatch(
      /which is empty: reactors have no network/,
    );
  });

  it("ends the review's flood of refused 200 KiB POSTs from 16 workers after 64 fetches, instead of at the timeout", async () => {
    const runtime = runtimeWith({ timeoutMs: 5000, memoryLimitMb: 64 });
    await runtime.run(TRIVIAL, request);
    const code = `module.exports = async () => {
      const seen = {};
      const body = 'x'.repeat(200 * 1024);
      const worker = async () => {
        for (;;) {
          try { await fetch('http://10.255.255.1/', { method: 'POST', body }); } catch (error) {
            seen[error.message] = (seen[error.message] || 0) + 1;
            if (/per invocation/.test(error.message)) return;
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      return { raw: seen };
    };`;
    const started = Date.now();
    expect(await runtime.run(code, request)).toMatchObject({
      ok: true,
      raw: {
        'fetch refused: the host is not in VAULT_REACTOR_ALLOWED_HOSTS (which is empty: reactors have no network).': 64,
        'fetch: at most 64 fetches per invocation.': 16,
      },
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
