// The model-based commands: each sends one request as one of the generated applications, checks the response against
// the invariant (World.checkLeaks) and the statuses API.md lets the model predict, then updates the model.
import fc from 'fast-check';
import {
  CreateChoice,
  dataFor,
  FINGERPRINTS,
  formatEin,
  formatSsn,
  luhnComplete,
  MASKS,
  pick,
  PatchChoice,
  QueryChoice,
  SEARCH_INDEXES,
} from './arbitraries';
import { learnFromRequest } from './knowledge';
import {
  AppSpec,
  DATA_SEARCHABLE,
  draftProblems,
  fingerprintInput,
  heldPermissions,
  LEVEL_NAME,
  levelFor,
  normalizeSearchValue,
  raisedPermissions,
  selectRule,
  serialize,
  TOKEN_CONTAINERS,
  TokenModel,
  TokenType,
  TYPE_DEFAULTS,
} from './model';
import { count, ran } from './branches';
import { alnum } from './windows';
import { viewsIn, World } from './world';

export type Cmd = fc.AsyncCommand<World, World>;

const json = (value: unknown) => JSON.stringify(value);
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const DERIVING = ['mask', 'search_indexes', 'fingerprint_expression'] as const;

/** The first string leaf of a token's data, or its plaintext. */
const firstLeaf = (data: unknown): string | null => {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) {
    for (const item of data) {
      const leaf = firstLeaf(item);
      if (leaf) return leaf;
    }
    return null;
  }
  if (data && typeof data === 'object') {
    for (const value of Object.values(data)) {
      const leaf = firstLeaf(value);
      if (leaf) return leaf;
    }
  }
  return null;
};

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

// ---- POST /tokens ----

export class CreateCommand implements Cmd {
  constructor(readonly c: CreateChoice) {}

  check(): boolean {
    return true;
  }

  async run(w: World): Promise<void> {
    ran('create');
    w.beginStep();
    const app = w.app(this.c.app);
    const { body, type, source } = createBody(this.c, w, app.spec);
    const containers = (body.containers as string[] | undefined) ?? [TYPE_DEFAULTS[type].container];
    const draft = {
      type,
      data: body.data,
      search_indexes: (body.search_indexes as string[] | undefined) ?? TYPE_DEFAULTS[type].search_indexes,
      fingerprint_expression: (body.fingerprint_expression as string | undefined) ?? TYPE_DEFAULTS[type].fingerprint_expression,
      mask: (body.mask as string | undefined) ?? TYPE_DEFAULTS[type].mask,
    };
    const problems = draftProblems(draft);
    const rule = selectRule(app.spec, containers, 'token:create');
    const input = fingerprintInput(draft);
    const matches = w.tokens.filter((t) => t.alive && t.type === type && input !== null && t.fingerprintInput === input);
    const covered = matches.filter((t) => selectRule(app.spec, t.containers, 'token:create'));
    let allowed: number[];
    let why: string;
    if (!heldPermissions(app.spec).has('token:create')) [allowed, why] = [[403], 'the app lacks token:create'];
    else if (problems.certain.length) [allowed, why] = [rule ? [400] : [400, 403], `invalid: ${problems.certain.join(', ')}`];
    else if (!rule) [allowed, why] = [[403], 'no token:create rule covers the requested containers'];
    else if (body.deduplicate_token && covered.length) [allowed, why] = [[200], `deduplicates to ${covered.map((t) => w.label(t)).join('/')}`];
    else if (body.deduplicate_token && matches.length)
      [allowed, why] = [[201], `the fingerprint matches ${matches.map((t) => w.label(t)).join('/')}, which no token:create rule of the caller covers: it does not exist for this caller`];
    else [allowed, why] = [[201], 'a new token'];
    if (!problems.certain.length && problems.possible.length && !allowed.includes(400)) {
      allowed.push(400);
      why += `; or 400: ${problems.possible.join(', ')}`;
    }

    const levels = w.levelsOf(app);
    learnFromRequest(app, body);
    const reply = await w.act(app, 'POST', '/tokens', body);
    w.checkLeaks(app, reply, levels);
    if (reply.status === 200 || reply.status === 201) {
      const id = (reply.body as { id?: string }).id;
      const existing = w.byId(id);
      if (reply.status === 200 && !covered.some((t) => t.id === existing?.id)) {
        w.fail(
          'LEAK',
          `deduplication returned ${w.label(existing ?? id)} to app${app.index}, whose token:create rules cover ` +
            `${covered.map((t) => w.label(t)).join(', ') || 'none of the matching tokens'} (entitled to ${LEVEL_NAME[levels.get(existing?.id ?? '') ?? 0]})`,
        );
      }
      if (reply.status === 201 && existing) w.fail('LEAK', `201 answered with the existing token ${w.label(existing)} (id ${existing.id})`);
    }
    w.expectStatus(reply, allowed, `${why}${source}`);
    if (body.deduplicate_token && rule && !problems.certain.length) {
      if (covered.length && reply.status === 200) count('dedupeCovered');
      else if (!covered.length && matches.length && reply.status === 201) count('dedupeHidden');
    }
    if (reply.status === 201) {
      const token = await w.sync((reply.body as { id: string }).id, [app.index]);
      // Cross-check the engine's fingerprint prediction with the API's own fingerprints.
      const sameFingerprint = covered.length === 0 && body.deduplicate_token
        ? w.tokens.filter((t) => t !== token && t.alive && t.type === type && t.fingerprint === token.fingerprint && selectRule(app.spec, t.containers, 'token:create'))
        : [];
      if (sameFingerprint.length) w.mismatch('STATUS', `deduplicate_token created a new token although ${sameFingerprint.map((t) => w.label(t)).join('/')} has its fingerprint and a token:create rule of the caller covers it`);
      w.expectView(reply.body, token, rule!.transform, 'create response');
    } else if (reply.status === 200) {
      const token = w.byId((reply.body as { id: string }).id)!;
      w.expectView(reply.body, token, selectRule(app.spec, token.containers, 'token:create')!.transform, 'deduplicated response');
    }
  }

  toString(): string {
    const c = this.c;
    const parts = [`app${c.app}`, c.derive ? `derive=${c.derive.mode}@${c.derive.steer}${c.derive.ref}` : c.type];
    if (c.own !== undefined) parts.push(`own#${c.own}`);
    else if (c.containers) parts.push(`containers=${json(c.containers)}`);
    if (c.fingerprint !== undefined) parts.push(`fp#${c.fingerprint}`);
    if (c.mask !== undefined) parts.push(`mask#${c.mask}`);
    if (c.searchIndexes) parts.push(`indexes#${c.searchIndexes.join(',')}`);
    if (c.dedupe) parts.push('dedupe');
    return `create(${parts.join(' ')})`;
  }
}

/**
 * The POST /tokens body of a create choice; with `derive`, the data comes from an existing token of the run (one the
 * caller's token:create rules cover, or not, as `steer` says), and with `own` the containers are some the caller may
 * create in. Without `spec` (the seeder's initial tokens) there is no steering.
 */
export const createBody = (c: CreateChoice, w: World, spec?: AppSpec): { body: Record<string, unknown>; type: TokenType; source: string } => {
  let type = c.type;
  let data = dataFor(type, c.seed, w.nextSalt());
  let fingerprint = c.fingerprint === undefined ? undefined : pick(FINGERPRINTS[type], c.fingerprint);
  let mask = c.mask === undefined ? undefined : pick(MASKS[type], c.mask);
  let indexes = c.searchIndexes === undefined ? undefined : [...new Set(c.searchIndexes.map((n) => pick(SEARCH_INDEXES[type], n)))];
  let source = '';
  if (c.derive && w.tokens.length) {
    const from = sourceToken(w, c.derive, spec);
    source = `; data derived (${c.derive.mode}) from ${w.label(from)}`;
    type = from.type;
    mask = undefined;
    indexes = undefined;
    fingerprint = from.fingerprint_expression;
    data = structuredClone(from.data);
    if (c.derive.mode === 'fingerprint' && type === 'token' && from.fingerprintInput !== null) {
      // The existing token's fingerprint input as this token's whole data: same fingerprint, less data supplied.
      data = from.fingerprintInput;
      fingerprint = '{{ data }}';
    } else if (c.derive.mode === 'prefix') {
      data = prefixData(from, dataFor(from.type, c.seed, w.nextSalt()));
    }
  }
  const body: Record<string, unknown> = { type, data };
  const own = spec && c.own !== undefined ? TOKEN_CONTAINERS.filter((container) => selectRule(spec, [container], 'token:create')) : [];
  if (own.length) body.containers = [own[c.own! % own.length]];
  else if (c.containers) body.containers = c.containers;
  if (c.metadata) body.metadata = c.metadata;
  if (indexes) body.search_indexes = indexes;
  if (fingerprint !== undefined) body.fingerprint_expression = fingerprint;
  if (mask !== undefined) body.mask = mask;
  if (c.dedupe) body.deduplicate_token = true;
  return { body, type, source };
};

const sourceToken = (w: World, derive: NonNullable<CreateChoice['derive']>, spec: AppSpec | undefined): TokenModel => {
  if (spec && derive.steer !== 'any') {
    const wanted = derive.steer === 'covered';
    const fitting = w.tokens.filter((t) => t.alive && !!selectRule(spec, t.containers, 'token:create') === wanted);
    if (fitting.length) return fitting[derive.ref % fitting.length];
  }
  return w.token(derive.ref);
};

/** Data of the same type sharing the existing token's first characters (or, for objects, its `k` leaf). */
const prefixData = (from: TokenModel, fresh: unknown): unknown => {
  const head = alnum(String(from.data)).slice(0, 3);
  switch (from.type) {
    case 'social_security_number':
      return formatSsn(head + alnum(String(fresh)).slice(3), String(fresh).includes('-'));
    case 'employer_id_number':
      return formatEin(head + alnum(String(fresh)).slice(3), String(fresh).includes('-'));
    case 'card_number': {
      const digits = String(fresh);
      return luhnComplete(String(from.data).slice(0, 3) + digits.slice(3, -1));
    }
    case 'token': {
      const data = from.data;
      const leaf = firstLeaf(fresh) ?? 'q0q0q0q0q0';
      if (typeof data === 'string') return data.slice(0, 3) + leaf;
      if (data && typeof data === 'object' && !Array.isArray(data) && 'k' in data) return { k: (data as { k: unknown }).k, j: leaf };
      return structuredClone(data);
    }
  }
};

// ---- PATCH /tokens/{id} ----

export class PatchCommand implements Cmd {
  constructor(readonly c: PatchChoice) {}

  check(w: Readonly<World>): boolean {
    return w.tokens.length > 0;
  }

  async run(w: World): Promise<void> {
    ran('patch');
    w.beginStep();
    const app = w.app(this.c.app);
    const token = w.token(this.c.ref);
    const body = this.body(token, w.nextSalt());
    const hasData = body.data !== undefined;
    const defaults = TYPE_DEFAULTS[token.type];
    const next = {
      type: token.type,
      data: hasData ? body.data : token.data,
      containers: body.containers === undefined ? token.containers : body.containers === null ? [defaults.container] : (body.containers as string[]),
      search_indexes: body.search_indexes === undefined ? token.search_indexes : ((body.search_indexes as string[] | null) ?? defaults.search_indexes),
      fingerprint_expression:
        body.fingerprint_expression === undefined ? token.fingerprint_expression : ((body.fingerprint_expression as string | null) ?? defaults.fingerprint_expression),
      mask: body.mask === undefined ? token.mask : body.mask === null ? defaults.mask : (body.mask as string),
    };
    const present = DERIVING.filter((f) => body[f] !== undefined);
    const changed = present.filter((f) => json(next[f]) !== json(token[f]));
    const updateRule = token.alive ? selectRule(app.spec, token.containers, 'token:update') : null;
    let allowed: number[];
    let why: string;
    if (!heldPermissions(app.spec).has('token:update')) [allowed, why] = [[403], 'the app lacks token:update'];
    else if (!updateRule) [allowed, why] = [[404], token.alive ? 'no token:update rule covers the token' : 'deleted'];
    else if (!hasData && updateRule.transform !== 'reveal' && changed.length) {
      [allowed, why] = [[403], `changes ${changed.join(', ')} without data under a ${updateRule.transform} token:update rule`];
    } else {
      const errors = new Set<number>();
      const reasons: string[] = [];
      // Only what the patch sets (or re-derives with new data) must be valid; an expression stored before a rule existed
      // (a whole-data mask, say) may or may not fail a patch that does not touch it.
      const found = draftProblems(next);
      const problems = [...found.certain, ...found.possible];
      const touched = found.certain.filter((p) => hasData || (present as readonly string[]).includes(p.split(/[[ ]/)[0]));
      if (touched.length) {
        errors.add(400);
        reasons.push(`invalid: ${touched.join(', ')}`);
      }
      let ambiguous = !hasData && updateRule.transform !== 'reveal' && present.length > changed.length;
      const untouched = problems.length > touched.length;
      if (!hasData && body.containers !== undefined) {
        const before = levelFor(app.spec, token.containers);
        const after = levelFor(app.spec, next.containers);
        if (after > before) {
          errors.add(403);
          reasons.push(`the move raises what the caller's rules show from ${LEVEL_NAME[before]} to ${LEVEL_NAME[after]}`);
        } else if (raisedPermissions(app.spec, token.containers, next.containers).length) {
          ambiguous = true;
          reasons.push(`the move raises the rule of ${raisedPermissions(app.spec, token.containers, next.containers).join(', ')} (not the maximum)`);
        }
      }
      if (!selectRule(app.spec, next.containers, 'token:update')) {
        errors.add(403);
        reasons.push('no token:update rule covers the new containers');
      }
      allowed = errors.size ? [...errors] : [200];
      if (ambiguous && !allowed.includes(403)) allowed.push(403);
      if (untouched && !allowed.includes(400)) {
        allowed.push(400);
        reasons.push(`or 400: ${problems.filter((p) => !touched.includes(p)).join(', ')}`);
      }
      why = reasons.join('; ') || 'a permitted update';
    }

    const levels = w.levelsOf(app);
    learnFromRequest(app, body);
    const before = [...token.containers];
    const reply = await w.act(app, 'PATCH', `/tokens/${token.id}`, body);
    w.checkLeaks(app, reply, levels, new Set(hasData && reply.status === 200 ? [token.id] : []));
    w.expectStatus(reply, allowed, why);
    if (reply.status === 403 && updateRule && !hasData) {
      if (updateRule.transform !== 'reveal' && changed.length) count('rederive403');
      else if (body.containers !== undefined) count('move403');
    }
    if (reply.status === 200) {
      await w.sync(token.id, hasData ? [app.index] : []);
      // A mask a non-reveal caller re-derived without data is no legitimate mask: its output entitles no one.
      if (hasData || (changed.includes('mask') && updateRule?.transform === 'reveal')) token.maskTainted = false;
      else if (changed.includes('mask')) token.maskTainted = true;
      if (!hasData && !sameSet(before, token.containers)) {
        // The caller's own move without data never entitles it to more than before (API.md "What a write may reveal").
        const was = Math.min(token.caps.get(app.index) ?? 3, levelFor(app.spec, before));
        token.caps.clear();
        token.caps.set(app.index, Math.min(was, levelFor(app.spec, token.containers)) as 0 | 1 | 2 | 3);
      }
      const rule = selectRule(app.spec, token.containers, 'token:update');
      if (rule) w.expectView(reply.body, token, rule.transform, 'update response');
    }
  }

  private body(token: TokenModel, salt: number): Record<string, unknown> {
    const c = this.c;
    const body: Record<string, unknown> = {};
    if (c.data) body.data = dataFor(token.type, c.data, salt);
    if (c.containers !== undefined) body.containers = c.containers;
    if (c.metadata) body.metadata = c.metadata;
    if (c.searchIndexes !== undefined) {
      body.search_indexes = c.searchIndexes === null ? null : [...new Set(c.searchIndexes.map((n) => pick(SEARCH_INDEXES[token.type], n)))];
    }
    if (c.fingerprint !== undefined) body.fingerprint_expression = c.fingerprint === null ? null : pick(FINGERPRINTS[token.type], c.fingerprint);
    if (c.mask !== undefined) body.mask = c.mask === null ? null : pick(MASKS[token.type], c.mask);
    if (c.expiresAt !== undefined) body.expires_at = c.expiresAt ? new Date(Date.now() + 86_400_000).toISOString() : null;
    return body;
  }

  toString(): string {
    const c = this.c;
    const parts = [`app${c.app}`, `T@${c.ref}`];
    if (c.data) parts.push('data');
    if (c.containers !== undefined) parts.push(`containers=${json(c.containers)}`);
    if (c.metadata) parts.push('metadata');
    if (c.searchIndexes !== undefined) parts.push(`indexes=${c.searchIndexes === null ? 'null' : '#' + c.searchIndexes.join(',')}`);
    if (c.fingerprint !== undefined) parts.push(`fp=${c.fingerprint === null ? 'null' : '#' + c.fingerprint}`);
    if (c.mask !== undefined) parts.push(`mask=${c.mask === null ? 'null' : '#' + c.mask}`);
    if (c.expiresAt !== undefined) parts.push(`expires=${c.expiresAt ? '+1d' : 'null'}`);
    return `patch(${parts.join(' ')})`;
  }
}

// ---- GET /tokens/{id} ----

export class GetCommand implements Cmd {
  constructor(readonly c: { app: number; ref: number }) {}

  check(w: Readonly<World>): boolean {
    return w.tokens.length > 0;
  }

  async run(w: World): Promise<void> {
    ran('get');
    w.beginStep();
    const app = w.app(this.c.app);
    const token = w.token(this.c.ref);
    const rule = token.alive ? selectRule(app.spec, token.containers, 'token:read') : null;
    const levels = w.levelsOf(app);
    const reply = await w.act(app, 'GET', `/tokens/${token.id}`);
    w.checkLeaks(app, reply, levels);
    if (!heldPermissions(app.spec).has('token:read')) w.expectStatus(reply, [403], 'the app lacks token:read');
    else w.expectStatus(reply, rule ? [200] : [404], rule ? 'a token:read rule covers it' : token.alive ? 'no token:read rule covers it' : 'deleted');
    if (reply.status === 200 && rule) w.expectView(reply.body, token, rule.transform, 'read response');
  }

  toString(): string {
    return `get(app${this.c.app} T@${this.c.ref})`;
  }
}

// ---- DELETE /tokens/{id} ----

export class DeleteCommand implements Cmd {
  constructor(readonly c: { app: number; ref: number }) {}

  check(w: Readonly<World>): boolean {
    return w.tokens.length > 0;
  }

  async run(w: World): Promise<void> {
    ran('delete');
    w.beginStep();
    const app = w.app(this.c.app);
    const token = w.token(this.c.ref);
    const rule = token.alive ? selectRule(app.spec, token.containers, 'token:delete') : null;
    const levels = w.levelsOf(app);
    const reply = await w.act(app, 'DELETE', `/tokens/${token.id}`);
    w.checkLeaks(app, reply, levels);
    if (!heldPermissions(app.spec).has('token:delete')) w.expectStatus(reply, [403], 'the app lacks token:delete');
    else w.expectStatus(reply, rule ? [204] : [404], rule ? 'a token:delete rule covers it' : 'no token:delete rule covers it, or deleted');
    if (reply.status === 204) token.alive = false;
  }

  toString(): string {
    return `delete(app${this.c.app} T@${this.c.ref})`;
  }
}

// ---- POST /tokens/search ----

export class SearchCommand implements Cmd {
  constructor(readonly c: { app: number; query: QueryChoice }) {}

  check(w: Readonly<World>): boolean {
    return w.tokens.length > 0 || this.c.query.kind === 'container' || this.c.query.kind === 'empty';
  }

  async run(w: World): Promise<void> {
    ran('search');
    w.beginStep();
    const app = w.app(this.c.app);
    const { body, matches } = this.query(w);
    const expected = w.tokens.filter((t) => t.alive && selectRule(app.spec, t.containers, 'token:search') && matches(t));
    const levels = w.levelsOf(app);
    learnFromRequest(app, body, true);
    const reply = await w.act(app, 'POST', '/tokens/search', body);
    w.checkLeaks(app, reply, levels);
    if (!heldPermissions(app.spec).has('token:search')) {
      w.expectStatus(reply, [403], 'the app lacks token:search');
      return;
    }
    w.expectStatus(reply, [200], 'a search');
    const page = reply.body as { data: Array<{ id: string }>; pagination: { total_items: number } };
    const got = page.data.map((v) => v.id).sort();
    const want = expected.map((t) => t.id).sort();
    if (json(got) !== json(want) || page.pagination.total_items !== want.length) {
      w.mismatch(
        'STATUS',
        `search ${json(body)} by app${app.index} should find [${expected.map((t) => w.label(t)).join(', ')}], ` +
          `found [${got.map((id) => w.label(id)).join(', ')}] (total_items ${page.pagination.total_items})`,
      );
    }
    for (const view of viewsIn(reply.body)) {
      const token = w.byId(view.id)!;
      w.expectView(view, token, selectRule(app.spec, token.containers, 'token:search')!.transform, 'search result');
    }
  }

  private query(w: World): { body: Record<string, unknown>; matches: (t: TokenModel) => boolean } {
    const q = this.c.query;
    const dataTerm = (value: string) => (t: TokenModel) => DATA_SEARCHABLE.includes(t.type) && t.searchValues.has(normalizeSearchValue(value));
    switch (q.kind) {
      case 'guess': {
        const t = w.token(q.ref);
        const plaintext = serialize(t.type, t.data);
        const leaf = firstLeaf(t.data) ?? plaintext;
        const guesses: Record<typeof q.guess, string> = {
          plaintext,
          alnum: alnum(plaintext),
          last4: alnum(plaintext).slice(-4),
          first3: leaf.slice(0, 3),
          leaf,
          random: q.random,
        };
        const value = guesses[q.guess].trim() || q.random;
        return { body: { query: `data:${quote(value)}`, size: 100 }, matches: dataTerm(value) };
      }
      case 'id': {
        const t = w.token(q.ref);
        return { body: { query: `id:${t.id}`, size: 100 }, matches: (x) => x.id === t.id };
      }
      case 'first3AndId': {
        const t = w.token(q.ref);
        const value = (firstLeaf(t.data) ?? serialize(t.type, t.data)).slice(0, 3).trim() || 'zzz';
        const data = dataTerm(value);
        return { body: { query: `data:${quote(value)} AND id:${t.id}`, size: 100 }, matches: (x) => x.id === t.id && data(x) };
      }
      case 'container':
        return { body: { query: 'container:"/pii/*"', size: 100 }, matches: (x) => x.containers.some((c) => c.startsWith('/pii/')) };
      case 'empty':
        return {
          body: q.form === 'absent' ? { size: 100 } : { query: q.form === 'null' ? null : '  ', size: 100 },
          matches: () => true,
        };
    }
  }

  toString(): string {
    const q = this.c.query;
    const what =
      q.kind === 'guess' ? `data:<${q.guess} of T@${q.ref}>` : q.kind === 'id' ? `id:T@${q.ref}` : q.kind === 'first3AndId' ? `data:<first3> AND id:T@${q.ref}` : q.kind === 'container' ? 'container:"/pii/*"' : `empty(${q.form})`;
    return `search(app${this.c.app} ${what})`;
  }
}
