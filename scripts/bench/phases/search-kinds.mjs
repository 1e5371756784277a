// The query kinds of the search phase, each a list of bodies built from the tokens sampled while loading, and each
// checked against the service for the expected result before it is timed.
import { expectStatus, search } from '../api.mjs';
import { BenchError } from '../context.mjs';
import { CONTAINER_PREFIXES } from '../mix.mjs';

export async function searchKinds(ctx) {
  const { samples } = ctx;
  const today = new Date().toISOString().slice(0, 10);
  const take = (list, n) => {
    if (list.length <= n) return list;
    const step = list.length / n;
    return Array.from({ length: n }, (_, i) => list[Math.floor(i * step)]);
  };
  const pick = (list, i) => list[i % list.length];
  const byData = samples.filter((s) => s.full !== null);
  const byLast4 = samples.filter((s) => s.last4 !== null);
  const byCustomer = samples.filter((s) => s.customer_id !== null);
  if (samples.length < 20 || byData.length < 5 || byLast4.length < 5 || byCustomer.length < 5) {
    throw new BenchError(`too few sampled tokens for the search phase (${samples.length}; ${byData.length} with data values, ${byCustomer.length} with a customer_id)`);
  }
  const q = (query, page = 1) => ({ query, page, size: 20 });
  const quote = (v) => `"${String(v).replace(/["\\]/g, (c) => '\\' + c)}"`;

  const kinds = [
    { name: 'id', selective: true, example: 'id:<uuid>', bodies: take(samples, 300).map((s) => q(`id:${s.id}`)), check: (res, body) => res.json.pagination.total_items === 1 && res.json.data[0].id === body.query.slice(3) },
    { name: 'fingerprint', selective: true, example: 'fingerprint:<base58>', bodies: take(samples, 300).map((s) => q(`fingerprint:${s.fingerprint}`)), check: (res, body) => res.json.data.some((t) => `fingerprint:${t.fingerprint}` === body.query) },
    { name: 'data full value', selective: true, example: 'data:"123-45-6789"', bodies: take(byData, 300).map((s) => q(`data:${quote(s.full)}`)), check: (res) => res.json.pagination.total_items >= 1 },
    { name: 'data last 4', selective: true, example: 'data:6789', bodies: take(byLast4, 300).map((s) => q(`data:${s.last4}`)), check: (res) => res.json.pagination.total_items >= 1 },
    { name: 'metadata', selective: true, example: 'metadata.customer_id:cust_123', bodies: take(byCustomer, 300).map((s) => q(`metadata.customer_id:${s.customer_id}`)), check: (res) => res.json.pagination.total_items >= 1 },
    { name: 'container/* AND date', selective: false, example: `container:"/customers/*" AND created_at:[${today} TO *]`, bodies: CONTAINER_PREFIXES.map((p) => q(`container:"${p}*" AND created_at:[${today} TO *]`)), check: (res) => res.json.pagination.total_items >= 1 },
    {
      name: 'OR of 5 terms',
      selective: false,
      example: 'id:a OR fingerprint:b OR data:"c" OR metadata.customer_id:d OR type:employer_id_number',
      bodies: Array.from({ length: 100 }, (_, i) =>
        q(`id:${pick(samples, i * 7).id} OR fingerprint:${pick(samples, i * 7 + 3).fingerprint} OR data:${quote(pick(byData, i).full)} OR metadata.customer_id:${pick(byCustomer, i).customer_id} OR ${i % 2 ? 'type:employer_id_number' : 'metadata.tier:gold'}`),
      ),
      check: (res) => res.json.pagination.total_items >= 1,
    },
    {
      name: 'NOT',
      selective: false,
      example: 'type:card_number NOT container:"/pci/high/"',
      bodies: [q('type:card_number NOT container:"/pci/high/"'), q('type:social_security_number NOT container:"/pii/*"'), q('type:employer_id_number NOT metadata.region:eu'), q('type:token NOT container:"/general/high/"')],
      check: (res) => res.json.pagination.total_items >= 0,
    },
  ];
  // The last page of large results: total_pages from a first request, then that page.
  const large = [null, 'type:card_number', 'container:"/customers/*"', 'type:social_security_number OR type:employer_id_number'];
  const lastPages = [];
  for (const query of large) {
    const first = await expectStatus(`search ${query}`, search(ctx, q(query)), [200]);
    const pages = first.json.pagination.total_pages;
    if (pages >= 1) lastPages.push(q(query, pages));
  }
  kinds.push({ name: 'last page of a large result', selective: false, example: `{"query":null,"page":<total_pages>,"size":20}`, bodies: lastPages, check: (res, body) => res.json.data.length >= 1 && res.json.pagination.page_number === body.page && res.json.pagination.total_pages === body.page });

  // Every body kind is checked before it is timed: the status, and that it finds what it should.
  for (const kind of kinds) {
    if (kind.bodies.length === 0) throw new BenchError(`search kind "${kind.name}" has no queries`);
    for (const body of take(kind.bodies, 10)) {
      const res = await expectStatus(`search ${JSON.stringify(body)}`, search(ctx, body), [200]);
      if (!kind.check(res, body)) throw new BenchError(`search ${JSON.stringify(body)} returned an unexpected result: ${res.text.slice(0, 300)}`);
    }
  }
  return kinds;
}
