// The leak property's model (applications and their access rules, what a write may reveal, token types, token
// search): which rule applies, what a caller is entitled to see of a token, what it knows, and what must never reach it.
// Written from the contract, not from the production code: only the Liquid engine is shared, to evaluate expressions
// the way the API does (search values, fingerprint inputs and validity predictions). Masks are read back from the API.
import { LiquidExpressionEngine } from '@vault/adapters/expressions/liquid-expression-engine';
import { alnum, showsData, WINDOW, windowsOf } from './windows';

export const engine = new LiquidExpressionEngine();

export const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:search', 'token:delete', 'token:use'] as const;
export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];
/** The token permissions whose operations answer with a token view (DELETE answers 204 with no body; token:use never shows data). */
export const SHOWING_PERMISSIONS: readonly TokenPermission[] = ['token:create', 'token:read', 'token:update', 'token:search'];

export type Transform = 'reveal' | 'mask' | 'redact';
/** The contract's order: reveal > mask > redact > no rule. */
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

/** Rules in ascending priority; the first whose container is a path prefix of one of the token's AND grants it. */
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

// ---- token types ----

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

/** `data:` terms only ever match these types. */
export const DATA_SEARCHABLE: readonly TokenType[] = ['token', 'social_security_number', 'employer_id_number'];

export const serialize = (type: TokenType, data: unknown): string => (type === 'token' ? JSON.stringify(data) : String(data));
export const normalizeSearchValue = (value: string): string => value.normalize('NFC').trim().toLowerCase();

// ---- secrets ----

/**
 * The strings whose windows (windows.ts) identify the data: each run of letters, digits and dashes in the data's
 * strings (the data itself, or each string leaf of an object or array), and its letters-and-digits form. Not what lies
 * between runs: the quotes, colons and key names of an object's JSON text (or of a string holding one, such as a token
 * made of another's fingerprint input) are the same for every object of that shape, and say nothing of the data.
 */
export const secretSources = (data: unknown): string[] => {
  const out = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      for (const run of value.match(/[A-Za-z0-9-]+/g) ?? []) {
        out.add(run);
        out.add(alnum(run));
      }
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(data);
  // Words of ours a token's data may hold: `object` is what the expression engine writes for an object it is asked to
  // print (`[object Object]`), `redacted` what stands in for a value withheld from a proxy's answer (a tokenize transform
  // then makes a token of it).
  return [...out].filter((text) => text.length >= WINDOW && !/^(object|redacted)$/i.test(text));
};

/** The folded windows of every source of the data that hold a letter or digit of generated data (not a key name). */
export const secretWindows = (data: unknown): Set<string> => new Set(secretSources(data).flatMap(windowsOf).filter(showsData));

// ---- expressions (evaluated with the API's Liquid engine) ----

export const evaluate = (expression: string, data: unknown): string | Error => {
  try {
    return engine.evaluate(expression, data);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
};

/** A search index evaluating to null/empty or to more than one value is a 400. */
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

/** A mask that evaluates to the whole data (with or without delimiters) is a 400. */
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
  /** Fields that make the draft a 400 under any reading of the contract. */
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
  /** The folded windows of its secret sources: what no response may carry to a caller that does not know them. */
  windows: Set<string>;
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
  /** What the fingerprint is computed from; null when it is of nothing a request can send again. */
  fingerprintInput: string | null;
  /**
   * A reactor's token made from data its caller does not reveal gets the fingerprint of a random value: while the
   * token keeps that fingerprint, no deduplication finds it.
   */
  opaqueFingerprint: string | null;
  /**
   * Levels capped for one application: its own container move without new data must not raise what it may see, and a
   * token a reactor made from its args shows the invoking caller no more than its token:read rules showed of them. So
   * even if the API lets more through, the model does not entitle that application to more.
   */
  caps: Map<number, Level>;
}

export const currentVersion = (token: TokenModel): DataVersion => token.versions[token.versions.length - 1];

export const newVersion = (type: TokenType, data: unknown, suppliedBy: Iterable<number>): DataVersion => ({
  data,
  plaintext: serialize(type, data),
  windows: secretWindows(data),
  suppliedBy: new Set(suppliedBy),
  masks: new Set(),
});
