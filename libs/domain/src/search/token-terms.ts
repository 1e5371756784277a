// How a token becomes what search matches: for each field of SEARCH_FIELDS, its terms, read from the token record and
// brought into the form queries compare (lower-cased unless the field is exact, each value once). The reference
// evaluator matches these and every search adapter indexes exactly these, so a new searchable field is one entry in
// TOKEN_TERMS, and the type checker then points at each adapter's map of fields.
import type { TokenRecord } from '../tokens/token.state';
import {
  isExactField,
  SEARCH_FIELDS,
  type SearchField,
  type SearchFieldKind,
  type SearchFieldOfKind,
} from './query.fields';

/** What search reads of a token record; a token read-model document is one. */
export type SearchableToken = Pick<
  TokenRecord,
  | 'id'
  | 'type'
  | 'fingerprint'
  | 'containers'
  | 'metadata'
  | 'search_hashes'
  | 'created_by'
  | 'created_at'
  | 'modified_by'
  | 'modified_at'
>;

/** The terms one field gives, by the field's kind. */
export interface TermsOfKind {
  /** One value; null while the field is unset (modified_by of a never-modified token). */
  term: string | null;
  /** Epoch milliseconds; null while unset. */
  date: number | null;
  /** Container paths. */
  container: readonly string[];
  /** The keyed hashes of the evaluated search indexes (whether the token's type may be searched is the query's rule). */
  data: readonly string[];
  /** (key, value) pairs. */
  metadata: ReadonlyArray<readonly [key: string, value: string]>;
}

export type TermsOf<F extends SearchField> = TermsOfKind[(typeof SEARCH_FIELDS)[F]['kind']];

/** Every field's terms of one token. */
export type TokenTerms = { readonly [F in SearchField]: TermsOf<F> };

/** Where each field's values are in a token record, as written; tokenTerms applies the field's case rule. */
export const TOKEN_TERMS: { readonly [F in SearchField]: (token: SearchableToken) => TermsOf<F> } = {
  id: (token) => token.id,
  type: (token) => token.type,
  fingerprint: (token) => token.fingerprint,
  container: (token) => token.containers,
  data: (token) => token.search_hashes,
  'metadata.<key>': (token) => Object.entries(token.metadata),
  created_by: (token) => token.created_by,
  created_at: (token) => instantOf(token.created_at),
  modified_by: (token) => token.modified_by,
  modified_at: (token) => instantOf(token.modified_at),
};

/** The terms of every field of SEARCH_FIELDS, as queries compare them. */
export const tokenTerms = (token: SearchableToken): TokenTerms => {
  const terms: Partial<Record<SearchField, unknown>> = {};
  for (const field of Object.keys(SEARCH_FIELDS) as SearchField[]) {
    const normalize = NORMALIZE[SEARCH_FIELDS[field].kind] as (values: unknown, field: SearchField) => unknown;
    terms[field] = normalize(TOKEN_TERMS[field](token), field);
  }
  return terms as TokenTerms;
};

/** Epoch milliseconds of an ISO 8601 instant; null when there is none (or it does not parse, which no record holds). */
const instantOf = (iso: string | null): number | null => {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

const lower = (text: string): string => text.toLowerCase();
const unique = (values: readonly string[]): string[] => [...new Set(values)];

// Each kind's case rule; values compare lower-cased, so two that differ only in case are one term.
const NORMALIZE: { readonly [K in SearchFieldKind]: (values: TermsOfKind[K], field: SearchFieldOfKind<K>) => TermsOfKind[K] } = {
  term: (value, field) => (value === null || isExactField(field) ? value : lower(value)),
  date: (value) => value,
  container: (paths) => unique(paths.map(lower)),
  data: (hashes) => unique(hashes.map(lower)),
  metadata: (pairs) => {
    const lowered = new Map(pairs.map(([key, value]) => [`${lower(key)}\u0000${lower(value)}`, [lower(key), lower(value)] as const]));
    return [...lowered.values()];
  },
};
