// The model-based commands on existing tokens: each sends one request as one of the generated applications, checks
// the response against the invariant (World.checkLeaks) and the statuses the model can predict, then updates the model.
import { dataFor, FINGERPRINTS, MASKS, pick, SEARCH_INDEXES } from './arbitraries';
import { PatchChoice, QueryChoice } from './token-choices';
import { count, ran } from './branches';
import { firstLeaf } from './create-command';
import { learnFromRequest } from './knowledge';
import {
  DATA_SEARCHABLE,
  draftProblems,
  heldPermissions,
  LEVEL_NAME,
  levelFor,
  normalizeSearchValue,
  raisedPermissions,
  selectRule,
  serialize,
  TokenModel,
  TYPE_DEFAULTS,
} from './model';
import { alnum } from './windows';
import { viewsIn } from './invariant';
import { type Cmd, World } from './world';

const json = (value: unknown) => JSON.stringify(value);
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const DERIVING = ['mask', 'search_indexes', 'fingerprint_expression'] as const;
const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

// ---- PATCH /tokens/{id} ----

export class PatchCommand implements Cmd {
  constructor(readonly c: PatchChoice) {}

  check(w: Readonly<World>): boolean {
    return w.tokens.length > 0;
  }

  async run(w: World): Promise<void> {
    ran('patch');
    w.beginStep();
    const updaters = w.apps.filter((a) => w.tokens.some((t) => t.alive && selectRule(a.spec, t.containers, 'token:update')));
    const app = this.c.steer && updaters.length ? updaters[this.c.app % updaters.length] : w.app(this.c.app);
    const updatable = w.tokens.filter((t) => t.alive && selectRule(app.spec, t.containers, 'token:update'));
    const token = this.c.steer && updatable.length ? updatable[this.c.ref % updatable.length] : w.token(this.c.ref);
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
        // The caller's own move without data never entitles it to more than before (what a write may reveal).
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
    const parts = [`app${c.app}`, `T@${c.ref}${c.steer ? ' updatable' : ''}`];
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
