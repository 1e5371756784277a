// One token as the embedded read model stores it: a tokens row whose columns hold the terms (token-terms.ts in the
// domain) of the fields with one value per token, and a token_terms row per term of the fields with many.
import type { TokenDocument } from '@vault/application';
import { type DateField, type SearchFieldOfKind, type TermField, type TermsOf, tokenTerms } from '@vault/domain';

/** The fields with one value per token, each a column of the tokens table. */
export type ColumnField = TermField | DateField;

/**
 * The tokens table's column of each term and date field: the field's term (lower-cased unless the field is exact, epoch
 * ms for dates), NULL while unset. A new column is a new table layout (READ_MODEL_SCHEMA_VERSION).
 */
export const FIELD_COLUMNS = {
  id: 'id',
  type: 'type',
  fingerprint: 'fingerprint',
  created_by: 'created_by_l',
  created_at: 'created_at_ms',
  modified_by: 'modified_by_l',
  modified_at: 'modified_at_ms',
} as const satisfies Record<ColumnField, string>;

/** The fields with many values per token, each term a token_terms row (field, value). */
export type PostingField = SearchFieldOfKind<'container' | 'metadata' | 'data'>;

/** The token_terms `field` of a container, a metadata pair (named by its key) and a data hash. */
export const postingFieldOf = {
  container: (): string => 'container',
  metadata: (key: string): string => `metadata.${key}`,
  data: (): string => 'data',
};

const POSTINGS: { readonly [F in PostingField]: (terms: TermsOf<F>) => Array<[field: string, value: string]> } = {
  container: (paths) => paths.map((path) => [postingFieldOf.container(), path]),
  'metadata.<key>': (pairs) => pairs.map(([key, value]) => [postingFieldOf.metadata(key), value]),
  data: (hashes) => hashes.map((hash) => [postingFieldOf.data(), hash]),
};

const COLUMN_FIELDS = Object.keys(FIELD_COLUMNS) as ColumnField[];
const POSTING_FIELDS = Object.keys(POSTINGS) as PostingField[];

/** The tokens table's columns after rowid, in the order tokenRows gives their values. */
export const TOKEN_COLUMNS: readonly string[] = [...COLUMN_FIELDS.map((field) => FIELD_COLUMNS[field]), 'tenant_id', 'expires_at_ms', 'revision', 'doc'];

export interface TokenRows {
  /** The tokens row's values in TOKEN_COLUMNS order. */
  row: Array<string | number | null>;
  /** The token_terms rows, each (field, value) once. */
  postings: Array<[field: string, value: string]>;
}

/** What the upsert and a rebuild's bulk INSERTs write for one token document. */
export function tokenRows(doc: TokenDocument, revision: bigint): TokenRows {
  const terms = tokenTerms(doc);
  const row: Array<string | number | null> = COLUMN_FIELDS.map((field) => terms[field]);
  row.push(doc.tenant_id, doc.expires_at === null ? null : Date.parse(doc.expires_at), Number(revision), JSON.stringify(doc));
  return { row, postings: POSTING_FIELDS.flatMap((field) => POSTINGS[field](terms[field] as never)) };
}
