// The query kinds of the 1-connection latency phase: the search phase's nine kinds, each as a list of
// bodies whose query text never repeats within the run's latency phase, so that no execution can be answered from a
// result or total cache (the service keeps exact totals per query text). The values come from the sampled tokens, or
// are generated (customer ids, last 4 digits, date-time bounds a second apart); the selective kinds and the OR kind
// draw on disjoint halves of the samples, so no selective term of one is timed again inside the other.
// Each kind also says how to check a response's total_items is exact (`verify`, run after the timing).
import { BenchError } from '../context.mjs';
import { CONTAINER_PREFIXES, CONTAINERS, rng } from '../mix.mjs';

const TYPES = ['card_number', 'social_security_number', 'employer_id_number', 'token'];
/** Broad terms of the OR kind: `type:` and `metadata.` terms, which the harness can evaluate on a returned token. */
const OR_BROAD = [['type', 'employer_id_number'], ['metadata.tier', 'gold'], ['type', 'social_security_number'], ['metadata.region', 'eu'], ['metadata.channel', 'web'], ['type', 'token'], ['metadata.tier', 'silver'], ['metadata.region', 'us']];
const NOT_TERMS = [
  ...CONTAINERS.map((c) => `container:"${c}"`),
  ...['/customers/', '/pii/', '/pci/', '/general/'].map((p) => `container:"${p}*"`),
  ...['eu', 'us', 'apac', 'latam'].map((v) => `metadata.region:${v}`),
  ...['web', 'mobile', 'pos', 'batch', 'partner'].map((v) => `metadata.channel:${v}`),
  ...['gold', 'silver', 'bronze'].map((v) => `metadata.tier:${v}`),
];
export const PAGE_SIZE = 20;

const quote = (v) => `"${String(v).replace(/["\\]/g, (c) => '\\' + c)}"`;
const q = (query, page = 1) => ({ query, page, size: PAGE_SIZE });

/**
 * The kinds with `n` bodies each at most (fewer where the samples run out), in the search phase's order and names.
 * `count(query)` answers an exact total through another query text (used for page numbers and expected totals).
 */
export async function latencyKinds(ctx, n, count) {
  const { samples } = ctx;
  if (samples.length < 40) throw new BenchError(`too few sampled tokens for the latency phase (${samples.length})`);
  const random = rng(ctx.opts.seed + 13);
  const a = samples.filter((_, i) => i % 2 === 0);
  const b = samples.filter((_, i) => i % 2 === 1);
  const customers = Math.max(1000, Math.round(ctx.opts.tokens / 5));
  const usedCustomers = new Set();
  const freshCustomer = (preferred) => {
    if (preferred && !usedCustomers.has(preferred)) {
      usedCustomers.add(preferred);
      return preferred;
    }
    for (let tries = 0; tries < 100_000; tries++) {
      const id = `cust_${1 + random.int(customers)}`;
      if (!usedCustomers.has(id)) {
        usedCustomers.add(id);
        return id;
      }
    }
    throw new BenchError('latency: ran out of unused customer ids');
  };
  const distinct = (list) => [...new Set(list.filter((v) => v !== null && v !== undefined))];
  // Every token of the run was created after this instant, so `created_at:[T TO *]` with T before it matches them all.
  const before = Date.now() - process.uptime() * 1000 - 60_000;
  const bound = (i) => new Date(before - i * 1000).toISOString();

  const last4 = distinct(samples.map((s) => s.last4));
  while (last4.length < n) {
    const v = random.digits(4);
    if (!last4.includes(v)) last4.push(v);
  }
  const byDataB = b.filter((s) => s.full !== null);
  const typeTotals = Object.fromEntries(await Promise.all(TYPES.map(async (t) => [t, await count(`type:${t}`)])));
  const everything = await count(null);

  const kinds = [
    selectiveKind('id', 'id:<uuid>', a.slice(0, n).map((s) => q(`id:${s.id}`))),
    selectiveKind('fingerprint', 'fingerprint:<base58>', a.slice(0, n).map((s) => q(`fingerprint:${s.fingerprint}`))),
    selectiveKind('data full value', 'data:"123-45-6789"', distinct(a.map((s) => s.full)).slice(0, n).map((v) => q(`data:${quote(v)}`))),
    selectiveKind('data last 4', 'data:6789', last4.slice(0, n).map((v) => q(`data:${v}`))),
    selectiveKind('metadata', 'metadata.customer_id:cust_123', Array.from({ length: n }, (_, i) => q(`metadata.customer_id:${freshCustomer(a[i]?.customer_id)}`))),
  ];

  const prefixTotals = Object.fromEntries(await Promise.all(CONTAINER_PREFIXES.map(async (p) => [p, await count(`container:"${p}*"`)])));
  kinds.push({
    name: 'container/* AND date',
    selective: false,
    example: 'container:"/customers/*" AND created_at:[<date-time before the run> TO *]',
    bodies: Array.from({ length: n }, (_, i) => {
      const prefix = CONTAINER_PREFIXES[i % CONTAINER_PREFIXES.length];
      return { ...q(`container:"${prefix}*" AND created_at:[${bound(i)} TO *]`), expected: prefixTotals[prefix] };
    }),
    verify: async (res, body) => res.json.pagination.total_items === body.expected,
  });

  const orBodies = [];
  for (let i = 0; orBodies.length < n && i < 4 * n; i++) {
    const [field, value] = OR_BROAD[i % OR_BROAD.length];
    const data = byDataB[i % Math.max(1, byDataB.length)];
    const terms = { id: b[i % b.length].id, fingerprint: b[(i + 1) % b.length].fingerprint, data: data?.full ?? null, customer: freshCustomer(b[(i + 2) % b.length].customer_id) };
    const query = [`id:${terms.id}`, `fingerprint:${terms.fingerprint}`, terms.data === null ? null : `data:${quote(terms.data)}`, `metadata.customer_id:${terms.customer}`, `${field}:${value}`].filter(Boolean).join(' OR ');
    if (!orBodies.some((o) => o.query === query)) orBodies.push({ ...q(query), terms, broad: [field, value] });
  }
  const broadTotals = new Map();
  kinds.push({
    name: 'OR of 5 terms',
    selective: false,
    example: 'id:a OR fingerprint:b OR data:"c" OR metadata.customer_id:d OR type:employer_id_number',
    bodies: orBodies,
    // Exact: the broad term's total plus the selective terms' matches (every page of each) that the broad term misses.
    verify: async (res, body, search) => {
      const [field, value] = body.broad;
      const key = `${field}:${value}`;
      if (!broadTotals.has(key)) broadTotals.set(key, await count(key));
      const extra = new Map();
      const selectiveTerms = [`id:${body.terms.id}`, `fingerprint:${body.terms.fingerprint}`, body.terms.data === null ? null : `data:${quote(body.terms.data)}`, `metadata.customer_id:${body.terms.customer}`];
      for (const term of selectiveTerms.filter(Boolean)) for (const t of await allPages(search, term)) if (!matches(t, field, value)) extra.set(t.id, t);
      return res.json.pagination.total_items === broadTotals.get(key) + extra.size;
    },
  });

  const notBodies = [];
  for (let i = 0; notBodies.length < n && i < 4 * n; i++) {
    const type = TYPES[i % TYPES.length];
    const structured = i % 2 === 0 && i / 2 < TYPES.length * NOT_TERMS.length;
    const term = structured ? NOT_TERMS[Math.floor(i / 2 / TYPES.length) % NOT_TERMS.length] : `metadata.customer_id:${freshCustomer()}`;
    const query = `type:${type} NOT ${term}`;
    if (!notBodies.some((o) => o.query === query)) notBodies.push({ ...q(query), type, term });
  }
  kinds.push({
    name: 'NOT',
    selective: false,
    example: 'type:card_number NOT container:"/pci/high/"',
    bodies: notBodies,
    // Exact: the type's total minus the tokens of that type the negated term matches.
    verify: async (res, body, search) => {
      const removed = body.term.startsWith('metadata.customer_id:')
        ? (await allPages(search, body.term)).filter((t) => t.type === body.type).length
        : await count(`type:${body.type} AND ${body.term}`);
      return res.json.pagination.total_items === typeTotals[body.type] - removed;
    },
  });

  // The last page of everything, or of one type, through a date range that holds every token: its page number comes
  // from the totals counted above under other query texts.
  const bases = [[null, everything], ...TYPES.map((t) => [`type:${t}`, typeTotals[t]])].filter(([, total]) => total > 0);
  kinds.push({
    name: 'last page of a large result',
    selective: false,
    example: '{"query":"created_at:[<date-time before the run> TO *]","page":<last>,"size":20}',
    bodies: Array.from({ length: n }, (_, i) => {
      const [base, total] = bases[i % bases.length];
      const range = `created_at:[${bound(i)} TO *]`;
      return { ...q(base ? `${base} AND ${range}` : range, Math.ceil(total / PAGE_SIZE)), expected: total };
    }),
    verify: async (res, body) => {
      const p = res.json.pagination;
      return p.total_items === body.expected && p.total_pages === body.page && res.json.data.length === body.expected - (body.page - 1) * PAGE_SIZE;
    },
  });

  // No query text may be sent twice in the phase, within a kind or across kinds.
  const texts = new Set();
  for (const kind of kinds) {
    for (const body of kind.bodies) {
      if (texts.has(body.query)) throw new BenchError(`latency: kind "${kind.name}" repeats the query ${JSON.stringify(body.query)}`);
      texts.add(body.query);
    }
  }
  return kinds;
}

/** A selective kind: exact when every page of the same query (100 a page) adds up to its total_items. */
function selectiveKind(name, example, bodies) {
  return {
    name,
    selective: true,
    example,
    bodies,
    verify: async (res, body, search) => {
      const all = await allPages(search, body.query);
      const ok = all.length === res.json.pagination.total_items;
      return name === 'id' ? ok && all.length === 1 && all[0].id === body.query.slice(3) : ok;
    },
  };
}

/** Every token a query returns, page by page (100 a page; at most 50 pages). */
async function allPages(search, query) {
  const out = [];
  for (let page = 1; page <= 50; page++) {
    const res = await search({ query, page, size: 100 });
    if (res.status !== 200) throw new BenchError(`latency check: search ${JSON.stringify(query)} answered ${res.status}`);
    out.push(...res.json.data);
    if (res.json.data.length < 100) break;
  }
  return out;
}

/** Whether a returned token matches a `type:` or `metadata.<key>:` term (both case-insensitive). */
function matches(token, field, value) {
  const v = value.toLowerCase();
  if (field === 'type') return String(token.type).toLowerCase() === v;
  const key = field.slice('metadata.'.length);
  return String(token.metadata?.[key] ?? '').toLowerCase() === v;
}
