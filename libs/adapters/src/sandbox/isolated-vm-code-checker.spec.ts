import type { CodeCheckResult } from '@vault/application';
import { IsolatedVmCodeChecker } from './isolated-vm-code-checker';

const checker = new IsolatedVmCodeChecker();

const rejected = (result: CodeCheckResult): string => {
  if (result.ok) throw new Error('the code was accepted');
  return result.reason;
};

describe('IsolatedVmCodeChecker accepts', () => {
  it.each([
    ['an async function export', 'module.exports = async function (req) { return { raw: req.args }; };'],
    ['an async arrow function export', 'module.exports = async ({ args, configuration }) => ({ raw: { ...args, ...configuration } });'],
    ['a plain function that returns a promise', 'module.exports = function (req) { return Promise.resolve({ raw: {} }); };'],
    ['a function assigned through exports = module.exports', 'exports = module.exports = async () => ({});'],
    ['top-level require of npm modules, used at load time', `
      const axios = require('axios');
      const { v4: uuid } = require('uuid');
      const client = axios.create({ baseURL: 'https://api.example.com' });
      client.defaults.headers.common['X-Id'] = uuid();
      module.exports = async ({ args }) => ({ raw: (await client.get('/x', { params: args })).data });
    `],
    ['top-level console logging and an early return', 'console.log("loading"); module.exports = async () => ({}); return;'],
    ['Node 16 syntax: optional chaining, ??, class fields, numeric separators', `
      class Mask { static char = '*'; apply(s) { return s?.replace(/./g, Mask.char) ?? ''; } }
      const limit = 1_000;
      module.exports = async ({ args }) => ({ raw: { masked: new Mask().apply(args?.value), limit } });
    `],
    // Node.js 16 takes a CommonJS file whose first line is a hashbang.
    ['a hashbang first line', '#!/usr/bin/env node\nmodule.exports = async () => ({});'],
    ['a hashbang after a byte order mark', '\uFEFF#!/usr/bin/env node\nmodule.exports = async () => ({});'],
    ['a function whose name starts with class', 'module.exports = function classify() { return Promise.resolve({}); };'],
    ['an arrow whose parameter name starts with class', 'module.exports = async (classes) => ({ raw: { classes } });'],
    ['a bound async function', 'module.exports = (async function () { return {}; }).bind(null);'],
    ['a class method exported on its own', 'class Api { static async handle() { return {}; } } module.exports = Api.handle;'],
  ])('%s', async (_title, code) => {
    await expect(checker.check(code)).resolves.toEqual({ ok: true });
  });
});

describe('IsolatedVmCodeChecker rejects', () => {
  it.each<[string, string, RegExp]>([
    ['a number export', 'module.exports = 42', /module\.exports must be an async function .*, not a number\.$/],
    ['no export at all', 'const handler = async () => ({});', /not an object\.$/],
    ['an object of functions', 'module.exports = { handler: async () => ({}) }', /not an object\.$/],
    ['an undefined export', 'module.exports = undefined', /not undefined\.$/],
    ['a null export', 'module.exports = null', /not null\.$/],
    ['exporting a required module instead of a function', "module.exports = require('lodash')", /not a required module/],
    // SPEC: one asynchronous function. These are functions that every invocation would fail, or never await.
    ['a class', 'module.exports = class {}', /^module\.exports must be an async function .*, not a class: a class cannot be called without new\.$/],
    ['a named class with a comment before its body', 'module.exports = class Handler/* x */{ async run() { return {}; } }', /not a class:/],
    ['a class extending another', 'class Base {} module.exports = class extends Base {}', /not a class:/],
    ['a generator function', 'module.exports = function* () { yield {}; }', /, not a generator function: a generator function returns an iterator, not the response\.$/],
    ['an async generator function', 'module.exports = async function* () { yield {}; }', /, not an async generator function: a generator function returns an iterator/],
    ['a generator method', 'module.exports = ({ *handle() { yield {}; } }).handle', /not a generator function/],
    ['a hashbang that is not on the first line', 'module.exports = async () => ({});\n#!/usr/bin/env node', /^SyntaxError: .*\(line 2, column 1\)$/],
    ['a syntax error, with the V8 message and the user\'s position', 'const a = ;\nmodule.exports = async () => ({});', /^SyntaxError: Unexpected token \(line 1, column 11\)$/],
    ['a syntax error after a hashbang, at the line and column the author wrote', '#!/usr/bin/env node\nconst a = ;\nmodule.exports = async () => ({});', /^SyntaxError: Unexpected token \(line 2, column 11\)$/],
    ['a syntax error on a later line', 'module.exports = async () => {\n  return { a: 1 b: 2 };\n};', /^SyntaxError: Unexpected identifier \(line 2, column 17\)$/],
    ['an unclosed brace', 'module.exports = async () => {\n  return {};\n', /^SyntaxError: Unexpected end of the code: a bracket or brace is left open/],
    ['a brace closed once too often', 'module.exports = async () => ({});\n}', /^SyntaxError: Unexpected end of the code: .* one too many is closed/],
    ['ES module syntax, with a hint', 'export default async function () {}', /^SyntaxError: Unexpected token \(line 1, column 1\)\. Formula code is CommonJS/],
    ['top-level await', 'const x = await Promise.resolve(1);\nmodule.exports = async () => x;', /^SyntaxError: await is only valid/],
    ['a top-level throw', 'module.exports = async () => ({});\nthrow new TypeError("missing API key");', /^The code threw while loading: TypeError \(line 2, column 7\)$/],
    ['a top-level throw of a non-error', 'throw { code: 42 };', /^The code threw while loading: a value that is not an Error$/],
    ['an infinite loop at top level', 'while (true) {}', /^The code's top level did not finish within 100 ms/],
    ['an infinite loop queued as a microtask', 'Promise.resolve().then(() => { for (;;) {} }); module.exports = async () => ({});', /did not finish within 100 ms/],
  ])('%s', async (_title, code, reason) => {
    expect(rejected(await checker.check(code))).toMatch(reason);
  });

  it('unbounded recursion, as the RangeError it throws', async () => {
    // A generous time limit: on a busy machine the stack can take longer than 100 ms to overflow, and this is about
    // the overflow's reason, not the time limit's.
    const patient = new IsolatedVmCodeChecker({ timeoutMs: 10_000 });
    expect(rejected(await patient.check('const f = () => f(); f();'))).toBe('The code threw while loading: RangeError (line 1, column 17)');
  });

  it.each<[string, string]>([
    ['parentheses', `module.exports = async () => ${'('.repeat(20_000)}1${')'.repeat(20_000)};`],
    ['array literals', `module.exports = async () => ${'['.repeat(20_000)}${']'.repeat(20_000)};`],
    ['blocks', `${'{'.repeat(25_000)}${'}'.repeat(25_000)}`],
    ['arrow functions', `module.exports = ${'()=>'.repeat(12_000)}1;`],
  ])('code nesting %s 20,000 deep, which overflows the compiler\'s stack', async (_title, code) => {
    expect(rejected(await checker.check(code))).toBe(
      'The code nests too deeply to compile: brackets, braces or functions inside one another thousands of levels deep.',
    );
  });

  it.each<[string, string]>([
    ['an unexpected identifier', 'module.exports = async () => { return { a: 1 Zq9secret: 2 }; };'],
    ['an unexpected string', 'module.exports = "Zq9secret" "Zq9secret";'],
    ['a bad regular expression', 'const r = /(Zq9secret/; module.exports = async () => r;'],
    ['a declaration made twice', 'let Zq9secret = 1; let Zq9secret = 2; module.exports = async () => 1;'],
    ['an undefined label', 'module.exports = async () => { break Zq9secret; };'],
    ['an undefined variable at top level', 'module.exports = Zq9secret;'],
    ['a thrown message', 'throw new Error("Zq9secret");'],
    ['a thrown string', 'throw "Zq9secret";'],
    ['an error class of its own', 'class Zq9secretError extends Error { name = "Zq9secretError"; } throw new Zq9secretError("Zq9secret");'],
    ['a non-function export', 'module.exports = "Zq9secret";'],
  ])('%s, without quoting the code', async (_title, code) => {
    expect(rejected(await checker.check(code))).not.toMatch(/Zq9/);
  });

  it('stops an allocation bomb at the memory limit', async () => {
    // A generous time limit, so the memory limit is what stops it even on a busy machine.
    const patient = new IsolatedVmCodeChecker({ timeoutMs: 10_000 });
    const reason = rejected(await patient.check('const hoard = []; for (;;) hoard.push(new Array(1e6).fill(1.5));'));
    expect(reason).toBe("The code's top level used more than the 32 MB of memory it may use.");
  });

  it('never shows the host\'s file paths or the sandbox plumbing in a reason', async () => {
    const reasons = await Promise.all(
      ['const a = ;', 'throw new Error("x")', 'null.x', 'while(true){}'].map(async (code) => rejected(await checker.check(code))),
    );
    for (const reason of reasons) {
      expect(reason).not.toMatch(/\/work|node_modules|isolated-vm|\.ts:|at (load|Sandbox)/);
    }
  });
});

describe('IsolatedVmCodeChecker keeps the code away from the host', () => {
  it('has no process: process.exit() fails inside the sandbox and the host keeps running', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    try {
      expect(rejected(await checker.check('process.exit(1);'))).toBe('The code threw while loading: ReferenceError (line 1, column 1)');
      expect(exit).not.toHaveBeenCalled();
    } finally {
      exit.mockRestore();
    }
  });

  it('cannot climb to the host\'s process through this.constructor.constructor', async () => {
    const reason = rejected(await checker.check('const p = this.constructor.constructor("return process")(); p.exit(1);'));
    expect(reason).toMatch(/^The code threw while loading: ReferenceError \(line 1, column \d+\)$/);
  });

  it('sees only JavaScript built-ins and its own stubs on the global object', async () => {
    // The export is a function only when none of the host's capabilities is reachable.
    const code = `
      const F = this.constructor.constructor;
      const g = F('return this')();
      const hostOnly = ['process', 'Buffer', 'setTimeout', 'setImmediate', 'fetch', 'module', 'require', '__dirname'];
      const leaked = hostOnly.filter((name) => typeof g[name] !== 'undefined');
      module.exports = leaked.length === 0 ? async () => ({}) : leaked.join(',');
    `;
    await expect(checker.check(code)).resolves.toEqual({ ok: true });
  });

  it('gives a required module no real behaviour: reading a file through fs yields only the stub', async () => {
    const code = `
      const fs = require('fs');
      const text = fs.readFileSync('/etc/passwd', 'utf8');
      module.exports = typeof text === 'string' ? 'read the host file' : async () => ({});
    `;
    await expect(checker.check(code)).resolves.toEqual({ ok: true });
  });

  it('does not let one check see what another left on its global object', async () => {
    await checker.check('globalThis.leftBehind = 1; module.exports = async () => ({});');
    const result = await checker.check('module.exports = typeof leftBehind === "undefined" ? async () => ({}) : 1;');
    expect(result).toEqual({ ok: true });
  });

  it('runs many checks at once without mixing their results', async () => {
    const codes = Array.from({ length: 12 }, (_, i) => (i % 2 ? `module.exports = ${i};` : 'module.exports = async () => ({});'));
    const results = await Promise.all(codes.map((code) => checker.check(code)));
    expect(results.map((r) => r.ok)).toEqual(codes.map((_, i) => i % 2 === 0));
  });
});
