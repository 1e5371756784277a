// The worst-case-bodies phase (`npm run bench -- --phase worst-case-bodies`, or this file alone after npm run build):
// builds the worst body each endpoint accepts (largest allowed lists, deepest allowed nesting, longest allowed strings)
// and the worst it must refuse (1 MiB of it), starts the built API in this process on a temp data dir, sends each
// body several times with fetch, and reports the longest the API's event loop was held (perf_hooks
// monitorEventLoopDelay, 1 ms resolution, running in the API's own process). API.md's target: 50 ms per request.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jsonOfWords, words } from './proxy-destination-server.mjs';
import { ms, table } from './util.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const DIST = join(ROOT, 'dist');
const TARGET_MS = 50;
const MiB = 1024 * 1024;

const HELP = `Usage: node --no-node-snapshot scripts/bench/worst-case-bodies.mjs [--repeat N] [--json FILE]
       npm run bench -- --phase worst-case-bodies

Starts the built API (dist/, from npm run build) in this process on a fresh temporary data dir, sends the worst-case
body of every endpoint --repeat times (default 5, after one unmeasured warm-up) and prints, per endpoint and per body,
the maximum event-loop delay of the process (target ≤ ${TARGET_MS} ms) and the slowest response.`;

const { values: args } = parseArgs({
  options: { repeat: { type: 'string', default: '5' }, json: { type: 'string' }, help: { type: 'boolean', default: false } },
  strict: true,
});
if (args.help) {
  process.stdout.write(HELP + '\n');
  process.exit(0);
}
const REPEAT = Number(args.repeat);
if (!Number.isInteger(REPEAT) || REPEAT < 1) {
  process.stderr.write(`worst-case-bodies: --repeat must be an integer ≥ 1, not "${args.repeat}"\n`);
  process.exit(2);
}

// isolated-vm needs --no-node-snapshot on Node 20: run again with it when it is missing.
if (!process.execArgv.includes('--no-node-snapshot')) {
  const rerun = spawnSync(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}

if (!existsSync(join(DIST, 'apps', 'api', 'src', 'create-app.js'))) {
  process.stderr.write('worst-case-bodies: dist/ is missing: run npm run build first (npm run bench does)\n');
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies

const str = (length, char = 'x') => char.repeat(length);
const many = (count, item) => Array.from({ length: count }, (_, i) => item(i));
/** `{"a":[1,1,…]}`-style padding: a JSON text of exactly `bytes` bytes made of `prefix`, filler items and `suffix`. */
const padded = (bytes, prefix, item, suffix) => {
  const room = bytes - prefix.length - suffix.length;
  const count = Math.max(0, Math.floor((room + 1) / (item.length + 1)));
  return prefix + many(count, () => item).join(',') + suffix;
};
const nestedArrays = (depth, inner = '') => `${str(depth, '[')}${inner}${str(depth, ']')}`;
/** A 16×16 PNG header (signature and IHDR with its CRC) padded with zeros to `bytes`, as a data URL. */
const pngIcon = (bytes) => {
  const header = Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex');
  const image = Buffer.alloc(bytes);
  header.copy(image);
  return `data:image/png;base64,${image.toString('base64')}`;
};

const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];

// Largest allowed lists, longest allowed strings: 100 rules, each with every token permission and a description as
// long as the cap on an application's rules (MAX_APPLICATION_RULES_JSON_LENGTH characters of JSON together) leaves.
const maxRules = () => {
  const rules = (descriptionLength) =>
    many(100, (i) => ({
      description: str(descriptionLength, 'd'),
      priority: i + 1,
      container: `/c${i}/`,
      transform: ['mask', 'redact', 'reveal'][i % 3],
      permissions: TOKEN_PERMISSIONS,
    }));
  const spare = MAX_RULES_JSON - JSON.stringify(rules(0)).length;
  return rules(Math.max(0, Math.floor(spare / 100) - 1));
};
const maxApplication = () => ({
  name: str(200, 'n'),
  type: 'private',
  permissions: many(30, (i) => TOKEN_PERMISSIONS[i % TOKEN_PERMISSIONS.length]),
  rules: maxRules(),
  expires_at: null,
});

const maxTokenFields = () => ({
  containers: many(10, (i) => `/c${i}/${str(100, 'a')}/`),
  metadata: Object.fromEntries(many(50, (i) => [`k${i}_${str(95, 'k')}`, str(500, 'v')])),
  search_indexes: many(20, (i) => `{{ data.k${i} | append: "${str(1_950, 's')}" }}`),
  mask: `{{ data.k0 | slice: 0, 4 | append: "${str(1_950, '*')}" }}`,
});
/** Token data as long as the domain allows (MAX_TOKEN_DATA_LENGTH characters of JSON): keys of 350-character values. */
const wideData = (length = MAX_DATA) => {
  const data = {};
  // `{}` plus, per entry, `"k<i>":"<value>"` and a comma between entries.
  for (let i = 0, used = 2; ; i++) {
    const value = str(350, String.fromCharCode(97 + (i % 26)));
    const entry = `"k${i}":"${value}"`.length + (i > 0 ? 1 : 0);
    if (used + entry > length) return data;
    data[`k${i}`] = value;
    used += entry;
  }
};
/** Data nested as deep as the domain allows (63 arrays around a value, 64 levels), as long as it allows too. */
const deepData = () => {
  const perLevel = Math.floor((MAX_DATA - 64 * 8) / 63);
  let data = 'leaf';
  for (let i = 0; i < 62; i++) data = [str(perLevel, 'x'), data];
  return [data];
};

/** 100 terms (the most a query may hold) in at most 4,096 characters (its longest). */
const maxSearch = () => {
  const query = many(100, (i) => `metadata.k${i}:"${str(20, 'v')}"`).join(' OR ');
  if (query.length > 4_096) throw new Error(`the search query is ${query.length} characters long`);
  return { query, page: 1_000_000_000, size: 100 };
};

const maxFormula = () => ({
  name: str(200, 'n'),
  description: str(2_000, 'd'),
  type: 'private',
  icon: pngIcon(100_000),
  code: `module.exports = async function (request) { return { raw: request.args }; };\n//${str(50_000 - 80, 'c')}`.slice(0, 50_000),
  configuration: many(100, (i) => ({ name: `c${i}_${str(190, 'c')}`, description: str(2_000, 'd'), type: 'string' })),
  // Dotted names of ~100 segments each: the prefix map sees every one.
  request_parameters: many(200, (i) => ({ name: `p${i}.${many(98, () => 'a').join('.')}`.slice(0, 200), description: str(1_000, 'd'), type: 'number', optional: true })),
});

// Refused bodies, each up to 1 MiB (the largest the parser reads).
const ALMOST = MiB - 64;
const refused = {
  invalidAtTheEnd: () => padded(ALMOST, '{"a":[', '1', ',]}'),
  nested: () => `{"a":${nestedArrays(Math.floor((ALMOST - 10) / 2))}}`,
  wideObjects: (field) => padded(ALMOST, `{"${field}":[`, '{"constructor":1,"b":[1]}', ']}'),
  tooLarge: () => `{"a":"${str(MiB, 'x')}"}`,
  // What JSON.parse alone spends most on: many small objects, many distinct keys (refused before parsing).
  emptyObjects: () => padded(ALMOST, '{"query":[', '{}', ']}'),
  distinctKeys: () => `{"query":{${many(Math.floor((ALMOST - 20) / 12), (i) => `"${i.toString(36).padStart(4, '0')}":0`).join(',')}}}`,
};

// The largest bodies the parser reads (100,000 values, 20,000 members): parsed, then refused by the endpoint.
const atTheCaps = {
  values: () => `{"query":[${many(99_998, () => '{}').join(',')}]}`,
  members: () => `{"query":{${many(20_000, (i) => `"${i.toString(36).padStart(4, '0')}":0`).join(',')}}}`,
};

/** A Luhn-valid 16-digit card number starting 4, distinct for each `n`. */
const cardNumber = (n) => {
  const digits = `4${String(n).padStart(14, '0')}`;
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let d = Number(digits[14 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits + String((10 - (sum % 10)) % 10);
};

/**
 * The largest proxied JSON body a detokenization reads: exactly 1 MiB, 100 `{{ <id> }}` (the most a body may hold) and
 * strings of words (no `{{`) filling the rest of the 10,000 values a detokenized body may hold.
 */
const largestProxied = (ids) => {
  const prefix = `{"cards":[${ids.map((id) => JSON.stringify(`{{ ${id} }}`)).join(',')}],"items":[`;
  const suffix = ']}';
  // The detokenizer reads the body inside an object of its own ({ body }), which counts as one of the 10,000 values.
  const count = 10_000 - 4 - ids.length; // that object, the body, its two arrays, the expressions
  const room = MiB - prefix.length - suffix.length - (count - 1) - 2 * count; // commas, quotes
  const length = Math.floor(room / count);
  const items = many(count, (i) => words(length + (i === count - 1 ? room - length * count : 0), i + 1));
  const body = prefix + items.map((item) => JSON.stringify(item)).join(',') + suffix;
  if (Buffer.byteLength(body) !== MiB) throw new Error(`the largest proxied body is ${Buffer.byteLength(body)} bytes`);
  return body;
};

// ---------------------------------------------------------------------------------------------------------------
// The proxies' destination: node:http in its own process (what it spends is not this process's event loop)

const destination = spawn(process.execPath, [join(HERE, 'proxy-destination-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PORT: '0' } });
process.on('exit', () => destination.kill('SIGTERM'));
const destinationPort = await new Promise((resolvePort, reject) => {
  let buffer = '';
  destination.stdout.on('data', (chunk) => {
    buffer += chunk;
    const line = buffer.split('\n').find((l) => l.includes('"proxy destination listening"'));
    if (line) resolvePort(JSON.parse(line).port);
  });
  destination.once('exit', (code) => reject(new Error(`the proxy destination exited with ${code}`)));
});

// ---------------------------------------------------------------------------------------------------------------
// The API, in this process

const require = createRequire(import.meta.url);
require(join(ROOT, 'node_modules', 'reflect-metadata'));
const { createApp } = require(join(DIST, 'apps', 'api', 'src', 'create-app.js'));
const { loadConfig } = require(join(DIST, 'libs', 'nest', 'src', 'index.js'));
const { MAX_TOKEN_DATA_LENGTH, MAX_APPLICATION_RULES_JSON_LENGTH } = require(join(DIST, 'libs', 'domain', 'src', 'index.js'));
/** The most characters of JSON an application's rules may hold together. */
const MAX_RULES_JSON = MAX_APPLICATION_RULES_JSON_LENGTH ?? 10_000;
/** The longest token data, in characters of JSON, the domain accepts. */
const MAX_DATA = MAX_TOKEN_DATA_LENGTH ?? 65_536;

const dataDir = mkdtempSync(join(os.tmpdir(), 'vault-worst-case-'));
const bootstrapKey = randomBytes(24).toString('base64url');
const config = loadConfig({
  VAULT_DATA_DIR: dataDir,
  VAULT_BOOTSTRAP_KEY: bootstrapKey,
  VAULT_LOG_LEVEL: 'error',
  VAULT_RATE_LIMIT_PER_SECOND: '1000000',
  VAULT_EXPIRY_SWEEP_MS: '0',
  VAULT_PROXY_ALLOWED_HOSTS: `127.0.0.1:${destinationPort}`,
});
const app = await createApp(config);
await app.listen(0, '127.0.0.1');
const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;

const call = async (method, path, key, body, contentType = 'application/json', headers = {}) => {
  const started = performance.now();
  const response = await fetch(base + path, {
    method,
    headers: { 'svc-api-key': key, ...(body === undefined ? {} : { 'content-type': contentType }), ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
};
const created = async (what, response) => {
  const { status, text } = await response;
  if (status !== 201) throw new Error(`set-up, ${what}: ${status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
};

const admin = bootstrapKey;
const holder = await created('application', call('POST', '/applications', admin, JSON.stringify({
  name: 'bench',
  type: 'private',
  permissions: TOKEN_PERMISSIONS,
  rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: TOKEN_PERMISSIONS }],
})));
const victim = await created('application', call('POST', '/applications', admin, JSON.stringify({ name: 'victim', type: 'private', permissions: ['token:read'] })));
// A full page of the largest applications, for GET /applications below (100 per page).
for (let i = 0; i < 100; i += 10) await Promise.all(many(10, () => created('application', call('POST', '/applications', admin, JSON.stringify(maxApplication())))));
const token = await created('token', call('POST', '/tokens', holder.key, JSON.stringify({ type: 'token', data: { k0: 'start' } })));
// 3,000 small tokens in /many/ (in batches of 50 at once): the 100-term searches below then visit every one of them.
for (let i = 0; i < 3_000; i += 50) {
  await Promise.all(many(50, (j) => created('token', call('POST', '/tokens', holder.key, JSON.stringify({ type: 'token', data: `many-${i + j}`, containers: ['/many/'] })))));
}
/** 100 negated container terms: every row costs a lookup per term, so this search is run off the event loop. */
const hundredNots = Array.from({ length: 100 }, (_, i) => `NOT container:"/x${i}/"`).join(' AND ');
const formula = await created('formula', call('POST', '/reactor-formulas', admin, JSON.stringify({ name: 'bench', type: 'private', code: 'module.exports = async () => ({});', configuration: [], request_parameters: [] })));
// The largest result a reactor may return (20,000 object members, 80,000 values): the API decodes it from the child's
// IPC message and, when the args used a token the caller does not reveal, looks for the token's data in every leaf.
const LARGEST_RESULT =
  'module.exports = async ({ args }) => { const raw = {}; for (let i = 0; i < 20000; i++) raw[args.a === undefined ? "key-" + i + "-" + "x".repeat(20) : "k" + i] = [i, args.a === undefined ? i + 1 : args.a, i + 2]; return { raw }; };';
const largest = await created('formula', call('POST', '/reactor-formulas', admin, JSON.stringify({ name: 'largest result', type: 'private', code: LARGEST_RESULT, configuration: [], request_parameters: [] })));
const reactor = await created('reactor', call('POST', '/reactors', admin, JSON.stringify({ name: 'largest result', formula: { id: largest.id }, configuration: {} })));
const user = await created('application', call('POST', '/applications', admin, JSON.stringify({
  name: 'user',
  type: 'private',
  permissions: ['token:use'],
  rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:use'] }],
})));
const used = await created('token', call('POST', '/tokens', holder.key, JSON.stringify({ type: 'social_security_number', data: '078-05-1120' })));
// Proxies: a caller whose rule masks (token:use and token:read), so every value it detokenizes is looked for in what
// comes back and replaced by its mask; 100 card tokens for it to detokenize; a proxy to the destination.
const masked = await created('application', call('POST', '/applications', admin, JSON.stringify({
  name: 'proxy caller',
  type: 'private',
  permissions: ['token:use', 'token:read'],
  rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:use', 'token:read'] }],
})));
const cards = [];
for (let i = 0; i < 100; i += 25) {
  cards.push(...(await Promise.all(many(25, (j) => created('token', call('POST', '/tokens', holder.key, JSON.stringify({ type: 'card_number', data: cardNumber(1000 + i + j) })))))));
}
const proxied = await created('proxy', call('POST', '/proxies', admin, JSON.stringify({ name: 'destination', destination_url: `http://127.0.0.1:${destinationPort}`, require_auth: true })));
const viaProxy = { 'svc-proxy-key': proxied.key };
const oneCard = JSON.stringify({ card_number: `{{ ${cards[0].id} }}`, amount: 1999 });

/** [endpoint, case, method, path, key, body text, statuses expected, content type, other headers] */
const cases = [
  ['POST /applications', 'largest valid body (30 permissions, 100 rules at the cap on their JSON)', 'POST', '/applications', admin, JSON.stringify(maxApplication()), [201]],
  ['POST /applications', 'refused: 1 MiB, invalid at its end', 'POST', '/applications', admin, refused.invalidAtTheEnd(), [400]],
  ['POST /applications', 'refused: 1 MiB nested 500,000 deep', 'POST', '/applications', admin, refused.nested(), [400]],
  ['POST /applications', 'refused: 1 MiB of rules (40,000)', 'POST', '/applications', admin, refused.wideObjects('rules'), [400]],
  ['POST /applications', 'refused: 1 MiB of objects in a scalar field', 'POST', '/applications', admin, refused.wideObjects('expires_at'), [400]],
  ['POST /applications', 'refused: over 1 MiB', 'POST', '/applications', admin, refused.tooLarge(), [413]],
  ['PUT /applications/{id}', 'largest valid body', 'PUT', `/applications/${victim.id}`, admin, JSON.stringify(maxApplication()), [200]],
  ['PUT /applications/{id}', 'refused: 1 MiB of objects in a scalar field', 'PUT', `/applications/${victim.id}`, admin, refused.wideObjects('name'), [400]],
  ['GET /applications', '100 per page of the largest applications', 'GET', '/applications?page=1&size=100', admin, undefined, [200]],
  ['POST /tokens', 'largest lists, longest data, 20 search indexes of 2,000 characters', 'POST', '/tokens', holder.key, JSON.stringify({ type: 'token', data: wideData(), ...maxTokenFields() }), [201]],
  ['POST /tokens', 'data nested 64 levels deep, longest data', 'POST', '/tokens', holder.key, JSON.stringify({ type: 'token', data: deepData(), ...maxTokenFields(), search_indexes: [] }), [201]],
  ['POST /tokens', 'refused: data just over the longest allowed', 'POST', '/tokens', holder.key, JSON.stringify({ type: 'token', data: wideData(MAX_DATA + 400), ...maxTokenFields() }), [400]],
  ['POST /tokens', 'refused: 1 MiB of metadata (30,000 keys)', 'POST', '/tokens', holder.key, JSON.stringify({ type: 'token', data: 'x', metadata: Object.fromEntries(many(30_000, (i) => [`k${String(i).padStart(6, '0')}`, str(20, 'v')])) }), [400]],
  ['POST /tokens', 'refused: 1 MiB, invalid at its end', 'POST', '/tokens', holder.key, refused.invalidAtTheEnd(), [400]],
  ['POST /tokens', 'refused: 1 MiB nested 500,000 deep', 'POST', '/tokens', holder.key, refused.nested(), [400]],
  ['PATCH /tokens/{id}', 'largest patch (longest data, largest lists)', 'PATCH', `/tokens/${token.id}`, holder.key, JSON.stringify({ data: wideData(), ...maxTokenFields() }), [200], 'application/merge-patch+json'],
  ['PATCH /tokens/{id}', 'refused: 1 MiB of containers (100,000)', 'PATCH', `/tokens/${token.id}`, holder.key, padded(ALMOST, '{"containers":[', '"/a/"', ']}'), [400], 'application/merge-patch+json'],
  ['GET /tokens/{id}', 'a token of the longest data, revealed', 'GET', `/tokens/${token.id}`, holder.key, undefined, [200]],
  ['POST /tokens/search', 'query of 4,096 characters and 100 terms, page 1,000,000,000, size 100', 'POST', '/tokens/search', holder.key, JSON.stringify(maxSearch()), [200]],
  ['POST /tokens/search', '100 NOT terms over 3,000 tokens, page 1', 'POST', '/tokens/search', holder.key, JSON.stringify({ query: hundredNots, size: 20 }), [200]],
  ['POST /tokens/search', '100 NOT terms over 3,000 tokens, page 80', 'POST', '/tokens/search', holder.key, JSON.stringify({ query: hundredNots, page: 80, size: 20 }), [200]],
  ['POST /tokens/search', 'all tokens, 100 per page (longest data, revealed)', 'POST', '/tokens/search', holder.key, JSON.stringify({ query: null, size: 100 }), [200]],
  ['POST /tokens/search', 'refused: a query of 1 MiB', 'POST', '/tokens/search', holder.key, JSON.stringify({ query: str(ALMOST - 20, 'a') }), [400]],
  ['POST /tokens/search', 'refused: 1 MiB of objects as the query', 'POST', '/tokens/search', holder.key, refused.wideObjects('query'), [400]],
  ['POST /tokens/search', 'refused: 1 MiB nested 500,000 deep', 'POST', '/tokens/search', holder.key, refused.nested(), [400]],
  ['POST /tokens/search', 'refused: 1 MiB of empty objects (350,000)', 'POST', '/tokens/search', holder.key, refused.emptyObjects(), [400]],
  ['POST /tokens/search', 'refused: 1 MiB of distinct keys (87,000)', 'POST', '/tokens/search', holder.key, refused.distinctKeys(), [400]],
  ['POST /tokens/search', 'refused after parsing: 99,999 objects (the value cap)', 'POST', '/tokens/search', holder.key, atTheCaps.values(), [400]],
  ['POST /tokens/search', 'refused after parsing: 20,000 distinct keys (the member cap)', 'POST', '/tokens/search', holder.key, atTheCaps.members(), [400]],
  ['POST /reactor-formulas', 'largest valid body (100 settings, 200 parameters, 50,000 characters of code, 100 KB icon)', 'POST', '/reactor-formulas', admin, JSON.stringify(maxFormula()), [201]],
  ['POST /reactor-formulas', 'refused (422): code of 50,000 characters nested 25,000 deep', 'POST', '/reactor-formulas', admin, JSON.stringify({ ...maxFormula(), icon: null, code: `module.exports = async () => ${str(24_980, '(')}1${str(24_980, ')')};` }), [422]],
  ['POST /reactor-formulas', 'refused: 20,000 request parameters', 'POST', '/reactor-formulas', admin, JSON.stringify({ ...maxFormula(), icon: null, configuration: [], request_parameters: many(20_000, (i) => ({ name: `a.b.c.d.e.f.g.h${i}`, type: 'string' })) }), [400]],
  ['POST /reactor-formulas', 'refused: 1 MiB, invalid at its end', 'POST', '/reactor-formulas', admin, refused.invalidAtTheEnd(), [400]],
  ['PUT /reactor-formulas/{id}', 'largest valid body', 'PUT', `/reactor-formulas/${formula.id}`, admin, JSON.stringify(maxFormula()), [200]],
  ['GET /reactor-formulas', '100 per page, name pattern', 'GET', '/reactor-formulas?name=*n*&page=1&size=100', admin, undefined, [200]],
  ['POST /reactors/{id}/react', 'the largest result (20,000 members), no token used', 'POST', `/reactors/${reactor.id}/react`, user.key, JSON.stringify({ args: {} }), [200]],
  ['POST /reactors/{id}/react', 'the largest result, each of its 20,000 entries holding a token the caller may not see', 'POST', `/reactors/${reactor.id}/react`, user.key, JSON.stringify({ args: { a: `{{ ${used.id} }}` } }), [200]],
  ['POST /proxy', 'largest JSON body (1 MiB, 9,896 strings, 100 tokens detokenized), echoed: 100 values looked for and masked in 1 MiB', 'POST', '/proxy/echo', masked.key, largestProxied(cards.map((c) => c.id)), [200], 'application/json', viaProxy],
  ['POST /proxy', "largest destination answer (1 MiB of JSON strings of words), one token detokenized: the guard reads it all", 'POST', `/proxy/answer/json?bytes=${MiB}`, masked.key, oneCard, [200], 'application/json', viaProxy],
  ['POST /proxy', 'destination answer of 1 MiB of plain text of words, one token detokenized', 'POST', `/proxy/answer/text?bytes=${MiB}`, masked.key, oneCard, [200, 502], 'application/json', viaProxy],
  ['POST /proxy', 'destination answer of 1 MiB of nested %-, \\u and &# escapes: 6 decoded readings, one token', 'POST', `/proxy/answer/escapes?bytes=${MiB}`, masked.key, oneCard, [200, 502], 'application/json', viaProxy],
  ['POST /proxy', 'destination answer of 1 MiB of base64 of base64 of base64, one token', 'POST', `/proxy/answer/base64?bytes=${MiB}`, masked.key, oneCard, [200, 502], 'application/json', viaProxy],
  ['POST /proxy', '1 MiB of 350,000 empty objects, no expression (parsed and written again to look for one), echoed', 'POST', '/proxy/echo', masked.key, refused.emptyObjects(), [200], 'application/json', viaProxy],
  ['POST /proxy', 'refused: 1 MiB of 350,000 empty objects and one expression (over the 10,000 values)', 'POST', '/proxy/echo', masked.key, padded(ALMOST, `{"card":"{{ ${cards[0].id} }}","items":[`, '{}', ']}'), [400], 'application/json', viaProxy],
  ['POST /proxy', 'refused: a destination answer over 1 MiB', 'POST', `/proxy/answer/json?bytes=${MiB + 1}`, masked.key, oneCard, [502], 'application/json', viaProxy],
  ['POST /proxy', 'refused: over 1 MiB', 'POST', '/proxy/echo', masked.key, refused.tooLarge(), [413], 'application/json', viaProxy],
  ['GET /permissions', 'baseline: a small read', 'GET', '/permissions', holder.key, undefined, [200]],
];

// ---------------------------------------------------------------------------------------------------------------
// Measure

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const rows = [];
const results = [];
let failed = false;
for (const [endpoint, what, method, path, key, body, expected, contentType, headers] of cases) {
  const first = await call(method, path, key, body, contentType, headers);
  if (!expected.includes(first.status)) {
    failed = true;
    process.stderr.write(`worst-case-bodies: ${endpoint} (${what}) answered ${first.status}, expected ${expected.join(' or ')}: ${first.text.slice(0, 300)}\n`);
  }
  const delays = [];
  let slowest = 0;
  for (let i = 0; i < REPEAT; i++) {
    // Let the timers of the previous request settle, then measure this one alone.
    await new Promise((r) => setTimeout(r, 20));
    delay.reset();
    const { status, ms: took } = await call(method, path, key, body, contentType, headers);
    await new Promise((r) => setImmediate(r));
    delays.push(delay.max / 1e6);
    slowest = Math.max(slowest, took);
    if (!expected.includes(status)) failed = true;
  }
  const bytes = body === undefined ? 0 : Buffer.byteLength(body);
  const maxDelay = Math.max(...delays);
  const median = [...delays].sort((a, b) => a - b)[Math.floor(delays.length / 2)];
  const round = (n) => Math.round(n * 10) / 10;
  results.push({ endpoint, case: what, status: first.status, body_bytes: bytes, max_event_loop_delay_ms: round(maxDelay), median_event_loop_delay_ms: round(median), slowest_response_ms: round(slowest) });
  rows.push([endpoint, what, first.status, bytes === 0 ? '—' : `${(bytes / 1024).toFixed(0)} KB`, ms(maxDelay), ms(median), ms(slowest), maxDelay <= TARGET_MS ? 'PASS' : 'MISS']);
}
delay.disable();
await app.close();
destination.kill('SIGTERM');
rmSync(dataDir, { recursive: true, force: true });

const byEndpoint = new Map();
for (const r of results) byEndpoint.set(r.endpoint, Math.max(byEndpoint.get(r.endpoint) ?? 0, r.max_event_loop_delay_ms));

const out = (line = '') => process.stdout.write(line + '\n');
out(`## Worst-case bodies: event-loop delay in the API process (monitorEventLoopDelay, 1 ms resolution; ${REPEAT} runs each after a warm-up; target ≤ ${TARGET_MS} ms)`);
out();
out(table(['endpoint', 'max event-loop delay', 'verdict'], [...byEndpoint].map(([endpoint, max]) => [endpoint, ms(max), max <= TARGET_MS ? 'PASS' : 'MISS'])));
out();
out(table(['endpoint', 'body', 'status', 'size', 'max event-loop delay', 'median of the runs', 'slowest response', 'verdict'], rows));
out();
out(`Node.js ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}. The client (fetch) runs in the same process, so its own work is counted too, and so is any time the OS gives the process's core to other work: a maximum well above its run's median is such a pause, not the request.`);
if (args.json) writeFileSync(args.json, JSON.stringify({ target_ms: TARGET_MS, repeat: REPEAT, by_endpoint: Object.fromEntries(byEndpoint), cases: results }, null, 2) + '\n');
if (failed) {
  process.stderr.write('worst-case-bodies: some bodies got an unexpected status (above)\n');
  process.exit(1);
}
process.exit(0);
