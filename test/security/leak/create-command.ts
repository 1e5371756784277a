// POST /tokens as a generated application: random data, expressions and containers, data derived from an existing
// token, and deduplication probes. The model predicts deduplication (only to a token a token:create rule of the caller
// covers; otherwise the existing token does not exist for it and a new one is created) and each answer's view.
import { dataFor, FINGERPRINTS, formatEin, formatSsn, luhnComplete, MASKS, pick, SEARCH_INDEXES } from './arbitraries';
import { CreateChoice } from './token-choices';
import { count, ran } from './branches';
import { learnFromRequest } from './knowledge';
import {
  AppSpec,
  draftProblems,
  fingerprintInput,
  heldPermissions,
  LEVEL_NAME,
  selectRule,
  TOKEN_CONTAINERS,
  TokenModel,
  TokenType,
  TYPE_DEFAULTS,
} from './model';
import { alnum } from './windows';
import { type Cmd, World } from './world';

const json = (value: unknown) => JSON.stringify(value);

/** The first string leaf of a token's data, or its plaintext. */
export const firstLeaf = (data: unknown): string | null => {
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
