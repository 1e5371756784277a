// The leak property's model (API.md "Authentication and applications", "What a write may reveal", "Tokens", "Token
// search"): which rule applies, what a caller is entitled to see of a token, what it knows, and what must never reach it.
// Written from API.md, not from the production code: only the Liquid engine is shared, to evaluate expressions the way
// the API does (search values, fingerprint inputs and validity predictions). Masks are read back from the API itself.
import { LiquidExpressionEngine } from '@vault/adapters/expressions/liquid-expression-engine';

export const engine = new LiquidExpressionEngine();

export const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:search', 'token:delete', 'token:use'] as const;
export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];
/** The token permissions whose operations answer with a token view (DELETE answers 204 with no body; token:use never shows data). */
export const SHOWING_PERMISSIONS: readonly TokenPermission[] = ['token:create', 'token:read', 'token:update', 'token:search'];

export type Transform = 'reveal' | 'mask' | 'redact';
/** API.md order: reveal > mask > redact > no rule. */
export type Level = 0 | 1 | 2 | 3;
export const LEVEL: Record<Transform | 'none', Level> = { none: 0, redact: 1, mask: 2, reveal: 3 };
export const LEVEL_NAME = ['none', 'redact', 'mask', 'reveal'] as const;

export const RULE_CONTAINERS = ['/', '/pii/', '/pii/high/', '/pci/', '/pci/high/', '/general/', '/general/high/', '/x/'] as const;
/** Token containers: the rule pool plus a deeper one and a sibling that shares a string prefix but not a path prefix. */
export const TOKEN_CONTAINERS = [...RULE_CONTAINERS, '/pii/high/a/', '/pcix/'] as const;

export interface RuleSpec {
  priority: number;
  container: string;
  transform: Transform;
  permissions: TokenPermission[];
}

/** A private application: rules empty means "behaves as one mask rule on / with its permissions". */
export interface AppSpec {
  permissions: TokenPermission[];
  rules: RuleSpec[];
}

export const effectiveRules = (app: AppSpec): RuleSpec[] => {
  if (app.rules.length > 0) return [...app.rules].sort((a, b) => a.priority - b.priority);
  return app.permissions.length > 0 ? [{ priority: 1, container: '/', transform: 'mask', permissions: [...app.permissions] }] : [];
};

/** The endpoint permissions: the application's own plus those its rules grant. */
export const heldPermissions = (app: AppSpec): Set<TokenPermission> =>
  new Set<TokenPermission>([...app.permissions, ...app.rules.flatMap((rule) => rule.permissions)]);

/** API.md: rules in ascending priority; the first whose container is a path prefix of one of the token's AND grants it. */
export const selectRule = (app: AppSpec, containers: readonly string[], permission: TokenPermission): RuleSpec | null =>
  effectiveRules(app).find(
    (rule) => rule.permissions.includes(permission) && containers.some((container) => container.startsWith(rule.container)),
  ) ?? null;

export const levelOf = (rule: RuleSpec | null): Level => (rule ? LEVEL[rule.transform] : 0);

/** The most revealing transform any of the app's rules shows the token with, over the given permissions. */
export const levelFor = (
  app: AppSpec,
  containers: readonly string[],
  permissions: readonly TokenPermission[] = SHOWING_PERMISSIONS,
): Level => {
  const held = heldPermissions(app);
  let best: Level = 0;
  for (const permission of permissions) {
    if (!held.has(permission)) continue;
    const level = levelOf(selectRule(app, containers, permission));
    if (level > best) best = level;
  }
  return best;
};

/** Permissions whose rule would show the token more revealingly in `after` than in `before`. */
export const raisedPermissions = (app: AppSpec, before: readonly string[], after: readonly string[]): TokenPermission[] =>
  TOKEN_PERMISSIONS.filter((p) => levelOf(selectRule(app, after, p)) > levelOf(selectRule(app, before, p)));

// ---- token types (API.md "Tokens") ----

export const TOKEN_TYPES = ['token', 'card_number', 'social_security_number', 'employer_id_number'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

const DIGIT_DEFAULTS = {
  fingerprint_expression: "{{ data | remove: '-' }}",
  mask: '{{ data | reveal_last: 4 }}',
  search_indexes: ['{{ data }}', "{{ data | remove: '-' }}", '{{ data | last4 }}'],
};
export const TYPE_DEFAULTS: Record<
  TokenType,
  { container: string; fingerprint_expression: string; mask: string | null; search_indexes: string[] }
> = {
  token: { container: '/general/high/', fingerprint_expression: '{{ data | stringify }}', mask: null, search_indexes: [] },
  card_number: { container: '/pci/high/', fingerprint_expression: '{{ data }}', mask: '{{ data | reveal_last: 4 }}', search_indexes: [] },
  social_security_number: { container: '/pii/high/', ...DIGIT_DEFAULTS },
  employer_id_number: { container: '/pii/high/', ...DIGIT_DEFAULTS },
};

/** API.md: `data:` terms only ever match these types. */
export const DATA_SEARCHABLE: readonly TokenType[] = ['token', 'social_security_number', 'employer_id_number'];

export const serialize = (type: TokenType, data: unknown): string => (type === 'token' ? JSON.stringify(data) : String(data));
export const alnum = (text: string): string => text.replace(/[^A-Za-z0-9]/g, '');
export const normalizeSearchValue = (value: string): string => value.normalize('NFC').trim().toLowerCase();

// ---- secrets ----

/** Strings shorter than this are not checked as secrets: they could occur in a response by chance. */
export const MIN_SECRET = 6;

/** Every data-derived string that would identify the data: the serialized plaintext, its letters-and-digits form, string leaves. */
export const secretsOf = (type: TokenType, data: unknown): string[] => {
  const out = new Set<string>();
  const add = (text: string) => {
    if (text.length >= MIN_SECRET) out.add(text);
  };
  // A string is its own secret; its JSON form (quoted) adds nothing but a way to miss that the caller knows the string.
  const plaintext = typeof data === 'string' ? data : serialize(type, data);
  add(plaintext);
  add(alnum(plaintext));
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      add(value);
      add(alnum(value));
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      Object.values(value).forEach(walk);
      add(JSON.stringify(value));
    }
  };
  walk(data);
  return [...out];
};

/** An evaluated mask worth checking as a secret: long enough, and showing some letter or digit of the data. */
export const significantMask = (masked: string): boolean => masked.length >= MIN_SECRET && /[A-WYZa-z0-9]/.test(masked);

// ---- expressions (evaluated with the API's Liquid engine) ----

export const evaluate = (expression: string, data: unknown): string | Error => {
  try {
    return engine.evaluate(expression, data);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
};

/** API.md: a search index evaluating to null/empty or to more than one value is a 400. */
const indexProblem = (rendered: string): boolean => {
  const trimmed = rendered.trim();
  if (trimmed === '' || ['null', 'undefined'].includes(trimmed.toLowerCase())) return true;
  if (trimmed.startsWith('[')) {
    try {
      return Array.isArray(JSON.parse(trimmed));
    } catch {
      return false;
    }
  }
  return false;
};

const lettersAndDigits = (text: string) => text.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** API.md: "A mask that evaluates to the whole data (with or without delimiters) is a 400." */
export const maskShowsWholeData = (masked: string, plaintext: string): boolean => {
  const data = lettersAndDigits(plaintext);
  return data.length > 0 && lettersAndDigits(masked).includes(data);
};

export interface Draft {
  type: TokenType;
  data: unknown;
  search_indexes: string[];
  fingerprint_expression: string;
  mask: string | null;
}

/**
 * A looser reading of "the whole data": every letter and digit of the data's values (not its JSON keys) appears in the
 * mask at least as often, in any order. A mask like `{{ data.k }}` on `{"k": "…"}` shows all of the data's values.
 */
export const maskMayShowWholeData = (masked: string, data: unknown): boolean => {
  const values: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') values.push(String(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(data);
  const counts = (text: string) => {
    const map = new Map<string, number>();
    for (const char of text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')) map.set(char, (map.get(char) ?? 0) + 1);
    return map;
  };
  const needed = counts(values.join(''));
  if (needed.size === 0) return false;
  const shown = counts(masked);
  for (const [char, count] of needed) if ((shown.get(char) ?? 0) < count) return false;
  return true;
};

export interface DraftProblems {
  /** Fields that make the draft a 400 under any reading of API.md. */
  certain: string[];
  /** Fields that make it a 400 under some reading only (either answer is accepted). */
  possible: string[];
}

/** Which fields of a (valid-shaped) draft make it a 400, as far as the model can tell. */
export const draftProblems = (draft: Draft): DraftProblems => {
  const certain: string[] = [];
  const possible: string[] = [];
  if (draft.type === 'card_number' && draft.search_indexes.length > 0) certain.push('search_indexes (card_number)');
  draft.search_indexes.forEach((expression, i) => {
    const rendered = evaluate(expression, draft.data);
    if (rendered instanceof Error || indexProblem(rendered)) certain.push(`search_indexes[${i}]`);
  });
  if (evaluate(draft.fingerprint_expression, draft.data) instanceof Error) certain.push('fingerprint_expression');
  if (draft.mask !== null) {
    const masked = evaluate(draft.mask, draft.data);
    if (masked instanceof Error || maskShowsWholeData(masked, serialize(draft.type, draft.data))) certain.push('mask');
    else if (maskMayShowWholeData(masked, draft.data)) possible.push('mask (shows every value of the data)');
  }
  return { certain, possible };
};

export const fingerprintInput = (draft: Pick<Draft, 'data' | 'fingerprint_expression'>): string | null => {
  const rendered = evaluate(draft.fingerprint_expression, draft.data);
  return rendered instanceof Error ? null : rendered;
};

export const searchValues = (draft: Pick<Draft, 'data' | 'search_indexes'>): Set<string> => {
  const values = new Set<string>();
  for (const expression of draft.search_indexes) {
    const rendered = evaluate(expression, draft.data);
    if (!(rendered instanceof Error) && !indexProblem(rendered)) values.add(normalizeSearchValue(rendered));
  }
  return values;
};

// ---- the world's state ----

export interface DataVersion {
  data: unknown;
  plaintext: string;
  secrets: string[];
  /** Applications that sent exactly this data (create or PATCH with `data`). */
  suppliedBy: Set<number>;
  /** Every evaluated mask of this data (the mask expression can change while the data stays). */
  masks: Set<string>;
}

export interface TokenModel {
  id: string;
  type: TokenType;
  alive: boolean;
  containers: string[];
  mask: string | null;
  search_indexes: string[];
  fingerprint_expression: string;
  fingerprint: string;
  /** The current data, as the reveal auditor reads it. */
  data: unknown;
  /** The current evaluated mask, as a mask-only auditor reads it (null: the view has no data). */
  masked: string | null;
  /** The mask was re-derived without data by a caller not entitled to reveal (the API should have refused). */
  maskTainted: boolean;
  versions: DataVersion[];
  searchValues: Set<string>;
  fingerprintInput: string | null;
  /**
   * Levels capped by an application's own container move without new data: such a move must not raise what the
   * application may see (API.md), so even if the API lets it through, the model does not entitle the mover to more.
   */
  caps: Map<number, Level>;
}

export interface AppModel {
  index: number;
  spec: AppSpec;
  id: string;
  key: string;
  /** Every string this application legitimately knows: data it sent, and what its entitlements showed it. */
  known: Set<string>;
  /** Search queries it sent: it knows what it guessed, but a guess entitles it to no token view. */
  guessed: Set<string>;
}

export const currentVersion = (token: TokenModel): DataVersion => token.versions[token.versions.length - 1];

/** What the application is entitled to see of the token right now. */
export const currentLevel = (app: AppModel, token: TokenModel): Level => {
  if (!token.alive) return 0;
  const level = levelFor(app.spec, token.containers);
  const cap = token.caps.get(app.index);
  return cap === undefined ? level : (Math.min(cap, level) as Level);
};

/** Entitlement accrues over time: whatever an application could see at some point, it knows from then on. */
export const accrue = (apps: readonly AppModel[], tokens: readonly TokenModel[]): void => {
  for (const token of tokens) {
    if (!token.alive) continue;
    for (const app of apps) {
      const level = currentLevel(app, token);
      if (level >= LEVEL.reveal) {
        const version = currentVersion(token);
        app.known.add(version.plaintext);
        for (const secret of version.secrets) app.known.add(secret);
      }
      if (level >= LEVEL.mask && token.masked !== null && !token.maskTainted) app.known.add(token.masked);
    }
  }
};

/** Whether the application knows this data version's plaintext: then everything derived from it is no news to it. */
export const knowsPlaintext = (app: AppModel, version: DataVersion): boolean => {
  const text = typeof version.data === 'string' ? version.data : version.plaintext;
  return text.length >= MIN_SECRET ? knows(app, text) : app.known.has(text) || app.guessed.has(text);
};

/** Whether the application knows this string: it is part of something it knows (or, unless excluded, guessed). */
export const knows = (app: AppModel, text: string, withGuesses = true): boolean => {
  const sets = withGuesses ? [app.known, app.guessed] : [app.known];
  for (const set of sets) {
    if (set.has(text)) return true;
    for (const known of set) if (known.includes(text)) return true;
  }
  return false;
};

/** Remembers what an application sent: data it supplies is always known to it. */
export const learnFromRequest = (app: AppModel, body: unknown, type?: TokenType): void => {
  if (body === undefined) return;
  (type ? app.known : app.guessed).add(typeof body === 'string' ? body : JSON.stringify(body));
  if (type && body && typeof body === 'object' && 'data' in body && (body as { data: unknown }).data !== undefined) {
    for (const secret of secretsOf(type, (body as { data: unknown }).data)) app.known.add(secret);
  }
};
