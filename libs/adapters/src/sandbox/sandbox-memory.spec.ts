// Memory the isolate's heap limit does not count must not be reachable from formula code: WebAssembly memory would
// let one run take gigabytes of the host's memory and outlast the wall-time limit.
import { IsolatedVmCodeChecker } from './isolated-vm-code-checker';
import { IsolatedVmReactorRuntime } from './isolated-vm-reactor-runtime';

describe('memory outside the heap limit', () => {
  const runtime = new IsolatedVmReactorRuntime({ timeoutMs: 2000, memoryLimitMb: 32 });
  afterAll(() => runtime.close());

  it('offers reactor code no WebAssembly', async () => {
    const result = await runtime.run(
      'module.exports = async () => ({ raw: { types: [typeof WebAssembly, typeof globalThis.WebAssembly] } });',
      { args: {}, configuration: {} },
    );
    expect(result).toEqual({ ok: true, raw: { types: ['undefined', 'undefined'] }, tokenize: null });
  });

  it('counts shared memory against the heap limit like any array buffer', async () => {
    const result = await runtime.run('module.exports = async () => ({ raw: { bytes: new SharedArrayBuffer(200 * 1024 * 1024).byteLength } });', {
      args: {},
      configuration: {},
    });
    expect(result).toMatchObject({ ok: false, kind: 'failed', message: expect.stringMatching(/allocation failed|memory/) });
  });

  it('fails a run that tries to grow WebAssembly memory, instead of allocating it on the host', async () => {
    const result = await runtime.run(
      'module.exports = async () => { const m = new WebAssembly.Memory({ initial: 1600 }); return { raw: { bytes: m.buffer.byteLength } }; };',
      { args: {}, configuration: {} },
    );
    expect(result).toMatchObject({ ok: false, kind: 'failed', message: expect.stringMatching(/WebAssembly is not defined/) });
  });

  it('runs a formula check whose top level reaches for WebAssembly without allocating it', async () => {
    const checker = new IsolatedVmCodeChecker();
    const result = await checker.check('const m = new WebAssembly.Memory({ initial: 4000 }); module.exports = async () => ({});');
    // Refused because the name does not exist, not because 256 MB ran into a limit after being allocated.
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/ReferenceError/) });
  });
});
