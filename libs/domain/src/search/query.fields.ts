// The searchable fields: the one table of their names and kinds, and how the parser resolves a field name against it.
import { QueryError, quoteName } from './query.errors';
import type { Token } from './query.lexer';

/** What a field's terms become: a `term` or `date` node naming the field, or a node of the field's own kind. */
export type SearchFieldKind = 'term' | 'date' | 'container' | 'data' | 'metadata';

export type SearchFieldSpec =
  /** `exact` fields compare values as written; the others compare them lower-cased. */
  | { readonly kind: 'term'; readonly case: 'insensitive' | 'exact' }
  | { readonly kind: Exclude<SearchFieldKind, 'term'> };

/**
 * Every field a query may name, in the order error messages and the API description list them. A new entry needs its
 * terms in TOKEN_TERMS (token-terms.ts); the type checker then points at each other place that must handle it: every
 * adapter's map of fields and the test arbitraries.
 */
export const SEARCH_FIELDS = {
  id: { kind: 'term', case: 'insensitive' },
  type: { kind: 'term', case: 'insensitive' },
  fingerprint: { kind: 'term', case: 'exact' },
  container: { kind: 'container' },
  data: { kind: 'data' },
  'metadata.<key>': { kind: 'metadata' },
  created_by: { kind: 'term', case: 'insensitive' },
  created_at: { kind: 'date' },
  modified_by: { kind: 'term', case: 'insensitive' },
  modified_at: { kind: 'date' },
} as const satisfies Record<string, SearchFieldSpec>;

export type SearchField = keyof typeof SEARCH_FIELDS;
/** The fields whose kind is `K`, in SEARCH_FIELDS (or, for the type tests, in another table). */
export type SearchFieldOfKind<
  K extends SearchFieldKind,
  Table extends Record<string, SearchFieldSpec> = typeof SEARCH_FIELDS,
> = { [F in keyof Table & string]: Table[F]['kind'] extends K ? F : never }[keyof Table & string];
export type TermField = SearchFieldOfKind<'term'>;
export type DateField = SearchFieldOfKind<'date'>;

export const isFieldOfKind = <K extends SearchFieldKind>(name: string, kind: K): name is SearchFieldOfKind<K> =>
  Object.hasOwn(SEARCH_FIELDS, name) && SEARCH_FIELDS[name as SearchField].kind === kind;

const fieldsOfKind = <K extends SearchFieldKind>(kind: K): readonly SearchFieldOfKind<K>[] =>
  Object.freeze(Object.keys(SEARCH_FIELDS).filter((name): name is SearchFieldOfKind<K> => isFieldOfKind(name, kind)));

export const TERM_FIELDS: readonly TermField[] = fieldsOfKind('term');
export const DATE_FIELDS: readonly DateField[] = fieldsOfKind('date');

/** Whether a term on `field` compares values exactly rather than lower-cased. */
export const isExactField = (field: TermField): boolean => SEARCH_FIELDS[field].case === 'exact';

/** `a`, `a or b`, `a, b or c`: how messages and descriptions list names. */
export const listNames = (names: readonly string[], conjunction: 'and' | 'or'): string =>
  names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;

export const FIELD_NAMES = listNames(Object.keys(SEARCH_FIELDS), 'or');

export type FieldTarget =
  | { kind: 'term'; field: TermField }
  | { kind: 'date'; field: DateField }
  | { kind: 'container' }
  | { kind: 'data' }
  | { kind: 'metadata'; key: string };

const METADATA_PREFIX = 'metadata.';
// The same rule metadata keys obey when tokens are written, so a key that cannot exist is an error.
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

/** Resolves the name of a `field` token, or throws a QueryError pointing at it. */
export const resolveField = (token: Token): FieldTarget => {
  const name = token.value;
  const position = token.start + 1;
  // Before the table: `metadata.<key>` names a pattern, and a key is whatever follows the prefix.
  if (name.startsWith(METADATA_PREFIX)) return { kind: 'metadata', key: metadataKey(name, position) };
  if (isFieldOfKind(name, 'term')) return { kind: 'term', field: name };
  if (isFieldOfKind(name, 'date')) return { kind: 'date', field: name };
  if (isFieldOfKind(name, 'container')) return { kind: 'container' };
  if (isFieldOfKind(name, 'data')) return { kind: 'data' };
  if (name === 'metadata') {
    throw new QueryError('Missing metadata key', position, 'metadata.<key>:<value>, e.g. metadata.customer:acme');
  }
  if (name === '') throw new QueryError('Missing field name', position, 'field:value, e.g. type:card_number');
  if (name === '_exists_') {
    throw new QueryError('Unsupported "_exists_"', position, `field:value with one of ${FIELD_NAMES}`);
  }
  const star = name.indexOf('*');
  if (star >= 0) {
    throw new QueryError('Unsupported wildcard "*"', position + star, `a field name: one of ${FIELD_NAMES}`);
  }
  throw new QueryError(`Unknown field${quoteName(name)}`, position, `one of ${FIELD_NAMES}`);
};

const metadataKey = (name: string, position: number): string => {
  const key = name.slice(METADATA_PREFIX.length);
  const keyPosition = position + METADATA_PREFIX.length;
  if (key === '') {
    throw new QueryError('Missing metadata key', keyPosition, 'metadata.<key>:<value>, e.g. metadata.customer:acme');
  }
  if (!METADATA_KEY.test(key)) {
    throw new QueryError('Invalid metadata key', keyPosition, 'a key of 1 to 100 letters, digits, "_", "." or "-"');
  }
  return key.toLowerCase();
};
