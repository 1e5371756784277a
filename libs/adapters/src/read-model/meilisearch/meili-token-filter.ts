// The flat token document Meilisearch indexes, and the compiler from the query AST to a filter over it. Both live here
// because every term is exact only while the two encode values the same way.
//
// Meilisearch normalizes every string it filters on: it trims it, applies NFKD, lower-cases it with Rust's rules and cuts
// it at 468 bytes (milli's normalize_facet and MAX_FACET_VALUE_LENGTH). Raw values would then match by the server's
// rules, not by the reference evaluator's (query.evaluate.ts). So the document holds each value in the form the
// evaluator compares, the token's terms (token-terms.ts: JavaScript toLowerCase, except fingerprints, which compare
// exactly), encoded as an ASCII key those steps leave unchanged. Equality of keys is then equality of values, whatever the value holds.
import { createHash } from 'node:crypto';
import type { TokenDocument } from '@vault/application';
import {
  DATA_SEARCHABLE_TYPES,
  DATE_FIELDS,
  type DateField,
  isExactField,
  type QueryNode,
  TERM_FIELDS,
  type TermField,
  tokenTerms,
} from '@vault/domain';
import { epochMs, meiliQuote } from './meili-collection';

/** Keys up to this length stay readable hex; longer ones are hashed, far below the 468-byte cut. */
const MAX_HEX_KEY = 400;

/** Every UTF-16 code unit as four hex digits: injective even on lone surrogates (UTF-8 would merge them). */
const hex16 = (value: string): string => {
  let out = '';
  for (let i = 0; i < value.length; i++) out += value.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
};

/**
 * The key of a tuple of strings: `x` and the hex16 of each part joined by `.`, or, past MAX_HEX_KEY characters, `h` and
 * the SHA-256 of that text. `.` is no hex digit, so parts cannot shift into each other; the leading mark keeps the two
 * forms apart and makes the empty string a non-empty key. Only [0-9a-fhx.], which normalization leaves as it is.
 */
export function meiliExactKey(...parts: string[]): string {
  const body = parts.map(hex16).join('.');
  return body.length <= MAX_HEX_KEY ? `x${body}` : `h${createHash('sha256').update(body).digest('hex')}`;
}

/**
 * The sort key of an id: fixed-width hex keeps JavaScript's code-unit order (Meilisearch sorts strings case-blind, so a
 * raw id would not). Ids are UUIDs, far shorter than the 117 code units after which the server's cut would tie them.
 */
export const meiliIdSortKey = (id: string): string => hex16(id);

/** A token as Meilisearch indexes it, beside `id`, `_revision` and `doc` (see meili-tokens.ts). */
export interface MeiliFlatToken {
  /** Raw, for the exact re-check on every hit; filters use tenant_x. */
  tenant_id: string;
  tenant_x: string;
  id_x: string;
  id_sort: string;
  type_x: string;
  fingerprint_x: string;
  created_by_x: string;
  /** Absent until the first update, so a positive term cannot match and NOT does (as in the evaluator). */
  modified_by_x?: string;
  containers_x: string[];
  /** Every prefix of each container that ends with `/`: `/a/b/` gives `/`, `/a/`, `/a/b/`. */
  container_prefixes_x: string[];
  /** One key per metadata pair: (key, value). */
  metadata_x: string[];
  search_hashes_x: string[];
  /** Epoch ms; each is absent when the date is null, never null itself (EXISTS counts null as present). */
  created_at_ms?: number;
  modified_at_ms?: number;
  expires_at_ms?: number;
}

type TermAttribute = 'id_x' | 'type_x' | 'fingerprint_x' | 'created_by_x' | 'modified_by_x';
type DateAttribute = 'created_at_ms' | 'modified_at_ms' | 'expires_at_ms';

/** The attribute each term field is indexed and filtered on: keys of lower-cased values, except for exact fields (fingerprint). */
const TERM_ATTRIBUTES: Record<TermField, TermAttribute> = {
  id: 'id_x',
  type: 'type_x',
  fingerprint: 'fingerprint_x',
  created_by: 'created_by_x',
  modified_by: 'modified_by_x',
};

/** The attribute each date field is indexed and filtered on, in epoch ms. */
const DATE_ATTRIBUTES: Record<DateField, DateAttribute> = {
  created_at: 'created_at_ms',
  modified_at: 'modified_at_ms',
};

/** The fields filters use; the index makes each of them filterable. */
export const MEILI_TOKEN_FILTERABLE: ReadonlyArray<keyof MeiliFlatToken> = [
  'tenant_x',
  ...Object.values(TERM_ATTRIBUTES),
  'containers_x',
  'container_prefixes_x',
  'metadata_x',
  'search_hashes_x',
  ...Object.values(DATE_ATTRIBUTES),
  'expires_at_ms',
];

const lower = (text: string): string => text.toLowerCase();
const lowerKey = (text: string): string => meiliExactKey(lower(text));

/** Prefixes of `path` that end with `/`: exactly the `p` ending in `/` for which path.startsWith(p). */
const slashPrefixes = (path: string): string[] => {
  const prefixes: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) prefixes.push(path.slice(0, i + 1));
  return prefixes;
};

/** The document of a token: each field's terms (tokenTerms) as keys, under the attributes its queries filter on. */
export function flattenToken(doc: TokenDocument): MeiliFlatToken {
  const terms = tokenTerms(doc);
  const flat: Partial<MeiliFlatToken> = {
    tenant_id: doc.tenant_id,
    tenant_x: meiliExactKey(doc.tenant_id),
    id_sort: meiliIdSortKey(doc.id),
    containers_x: terms.container.map((path) => meiliExactKey(path)),
    container_prefixes_x: unique(terms.container.flatMap(slashPrefixes).map((prefix) => meiliExactKey(prefix))),
    metadata_x: terms['metadata.<key>'].map(([key, value]) => meiliExactKey(key, value)),
    search_hashes_x: terms.data.map((hash) => meiliExactKey(hash)),
  };
  // An unset term or date stays absent: never null, which EXISTS would count as present.
  for (const field of TERM_FIELDS) {
    const value = terms[field];
    if (value !== null) flat[TERM_ATTRIBUTES[field]] = meiliExactKey(value);
  }
  for (const field of DATE_FIELDS) setNumber(flat, DATE_ATTRIBUTES[field], terms[field]);
  // Not a search field, but every search filters on it (meiliTokenSearchFilter) and the expiry sweep looks for it.
  setNumber(flat, 'expires_at_ms', epochMs(doc.expires_at));
  return flat as MeiliFlatToken;
}

const unique = (values: string[]): string[] => [...new Set(values)];

const setNumber = (flat: Partial<MeiliFlatToken>, attribute: DateAttribute, ms: number | null) => {
  if (ms !== null) flat[attribute] = ms;
};

/** The key a term field's value is indexed and filtered by: exact fields as written, the others lower-cased. */
const termKey = (field: TermField, value: string): string => (isExactField(field) ? meiliExactKey(value) : lowerKey(value));

// Keys of the types DATA_SEARCHABLE_TYPES names, compared as the evaluator does: lower(type) against each entry.
const DATA_TYPE_KEYS = DATA_SEARCHABLE_TYPES.map((type) => meiliExactKey(type));

/** A number literal: quoted like every value (the server parses a quoted number for `>=` and `<` the same way). */
export const meiliNumber = (value: number): string => {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
  return meiliQuote(String(value));
};

/** `atomic` text can stand as an operand of AND, OR and NOT as it is; anything else is parenthesised first. */
interface Compiled {
  text: string;
  atomic: boolean;
}

const atom = (text: string): Compiled => ({ text, atomic: true });
const compound = (text: string): Compiled => ({ text, atomic: false });
const operand = (compiled: Compiled): string => (compiled.atomic ? compiled.text : `(${compiled.text})`);
const equals = (field: string, key: string): Compiled => atom(`${field} = ${meiliQuote(key)}`);

/**
 * The filter that keeps exactly the tokens evaluateQuery(ast, token) accepts, over documents made by flattenToken.
 * It holds neither the tenant nor the expiry condition: the caller adds those as separate elements of `filter`.
 */
export function compileTokenFilter(ast: QueryNode): string {
  return compile(ast).text;
}

function compile(node: QueryNode): Compiled {
  switch (node.kind) {
    case 'and':
    case 'or':
      return compound(node.children.map((child) => operand(compile(child))).join(node.kind === 'and' ? ' AND ' : ' OR '));
    case 'not':
      // NOT is the complement over all documents, including those lacking the field: the evaluator's `!`.
      return atom(`NOT ${operand(compile(node.child))}`);
    case 'term':
      return equals(TERM_ATTRIBUTES[node.field], termKey(node.field, node.value));
    case 'container':
      return node.descendants
        ? equals('container_prefixes_x', descendantsKey(node.path))
        : equals('containers_x', lowerKey(node.path));
    case 'metadata':
      return equals('metadata_x', meiliExactKey(lower(node.key), lower(node.value)));
    case 'data':
      return compound(
        `type_x IN [${DATA_TYPE_KEYS.map(meiliQuote).join(', ')}] AND search_hashes_x = ${meiliQuote(lowerKey(node.value))}`,
      );
    case 'date': {
      const field = DATE_ATTRIBUTES[node.field];
      const bounds = [
        ...(node.gte === null ? [] : [`${field} >= ${meiliNumber(node.gte)}`]),
        ...(node.lt === null ? [] : [`${field} < ${meiliNumber(node.lt)}`]),
      ];
      // `[* TO *]` asks for tokens that have the date at all.
      if (bounds.length === 0) return atom(`${field} EXISTS`);
      return bounds.length === 1 ? atom(bounds[0]) : compound(bounds.join(' AND '));
    }
  }
}

// container_prefixes_x holds only prefixes ending in `/`; the parser only makes such paths, and any other one would
// silently match too little, so it is refused instead.
function descendantsKey(path: string): string {
  const lowered = lower(path);
  if (!lowered.endsWith('/')) throw new Error(`A container path with "*" must end with "/" (got ${JSON.stringify(path)})`);
  return meiliExactKey(lowered);
}
