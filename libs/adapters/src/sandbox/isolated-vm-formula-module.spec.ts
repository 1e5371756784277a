import fc from 'fast-check';
import { loadFormula, withoutHashbang, type LoadedFormula } from './isolated-vm-formula-module';

const limits = { memoryLimitMb: 32, timeoutMs: 100 };

const loaded = async (code: string): Promise<LoadedFormula> => {
  const result = await loadFormula(code, limits);
  if (!result.ok) throw new Error(result.reason);
  return result.formula;
};

describe('a formula loaded in isolated-vm', () => {
  const formulas: LoadedFormula[] = [];
  const load = async (code: string) => {
    const formula = await loaded(code);
    formulas.push(formula);
    return formula;
  };
  afterEach(() => formulas.splice(0).forEach((formula) => formula.dispose()));

  it('reports what the code exported', async () => {
    expect((await load('module.exports = async () => ({});')).exported).toBe('function');
    expect((await load('module.exports = { a: 1 };')).exported).toBe('object');
    expect((await load('module.exports = class {};')).exported).toBe('class');
    expect((await load('module.exports = function* () {};')).exported).toBe('generator function');
    expect((await load('module.exports = async function* () {};')).exported).toBe('async generator function');
    expect((await load('module.exports = function classic() {};')).exported).toBe('function');
  });

  it('reads a hashbang first line as a comment, keeping every position: the rule holds for every code', () => {
    const lines = (code: string) => code.split(/\r\n|[\n\r\u2028\u2029]/);
    fc.assert(
      fc.property(fc.constantFrom('', '#!', '\uFEFF#!', '#', ' #!'), fc.string(), (head, rest) => {
        const code = head + rest;
        const out = withoutHashbang(code);
        expect(out).toHaveLength(code.length);
        expect(lines(out).map((line) => line.length)).toEqual(lines(code).map((line) => line.length));
        // Only a leading #! (after an optional BOM) changes, and only into //.
        const hashbang = /^\uFEFF?#!/.exec(code);
        if (hashbang) expect(out).toBe(hashbang[0].replace('#!', '//') + code.slice(hashbang[0].length));
        else expect(out).toBe(code);
      }),
    );
  });

  it('is called with a copy of the request and answers with a copy of its response', async () => {
    const formula = await load(`
      module.exports = async ({ args, configuration }) => {
        args.touched = true;
        return { raw: { greeting: configuration.prefix + ' ' + args.name, keys: Object.keys(args) } };
      };
    `);
    const request = { args: { name: 'Ada' }, configuration: { prefix: 'Hello' } };
    await expect(formula.invoke(request)).resolves.toEqual({ raw: { greeting: 'Hello Ada', keys: ['name', 'touched'] } });
    expect(request.args).toEqual({ name: 'Ada' });
  });

  it('answers null for a function that returns nothing', async () => {
    await expect((await load('module.exports = async () => {};')).invoke({ args: {}, configuration: {} })).resolves.toBeNull();
  });

  it('keeps module state between invocations of one load, as a long-lived reactor would', async () => {
    const formula = await load('let calls = 0; module.exports = async () => ({ raw: { calls: ++calls } });');
    await formula.invoke({ args: {}, configuration: {} });
    await expect(formula.invoke({ args: {}, configuration: {} })).resolves.toEqual({ raw: { calls: 2 } });
  });

  it('rejects with the formula\'s own error and where it was thrown', async () => {
    const formula = await load('module.exports = async () => {\n  throw new Error("card declined");\n};');
    await expect(formula.invoke({ args: {}, configuration: {} })).rejects.toThrow(
      /^The formula threw: Error: card declined \(line 2, column 9\)$/,
    );
  });

  it('stops a function that loops forever', async () => {
    const formula = await load('module.exports = async () => { for (;;) {} };');
    await expect(formula.invoke({ args: {}, configuration: {} })).rejects.toThrow(/^The formula did not finish within 100 ms/);
  });

  it('gives up on a promise that never settles, once the host deadline passes', async () => {
    const formula = await load('module.exports = () => new Promise(() => {});');
    await expect(formula.invoke({ args: {}, configuration: {} })).rejects.toThrow(/did not finish within 100 ms/);
  });

  it('cannot be invoked once disposed', async () => {
    const formula = await load('module.exports = async () => ({});');
    formula.dispose();
    await expect(formula.invoke({ args: {}, configuration: {} })).rejects.toThrow(/not loaded/);
  });
});
