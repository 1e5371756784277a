// Which field names a term may use, and what kind of node each one becomes.
import type { DateField, TermField } from './query.ast';
import { QueryError, quoteName } from './query.errors';
import type { Token } from './query.lexer';

export type FieldTarget =
  | { kind: 'term'; field: TermField }
  | { kind: 'date'; field: DateField }
  | { kind: 'container' }
  | { kind: 'data' }
  | { kind: 'metadata'; key: string };

const TERM_FIELDS: readonly string[] = ['id', 'type', 'fingerprint', 'created_by', 'modified_by'];
const DATE_FIELDS: readonly string[] = ['created_at', 'modified_at'];
const METADATA_PREFIX = 'metadata.';
// The same rule metadata keys obey when tokens are written, so a key that cannot exist is an error.
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

export const FIELD_NAMES =
  'id, type, fingerprint, container, data, metadata.<key>, created_by, created_at, modified_by or modified_at';

/** Resolves the name of a `field` token, or throws a QueryError pointing at it. */
export const resolveField = (token: Token): FieldTarget => {
  const name = token.value;
  const position = token.start + 1;
  if (TERM_FIELDS.includes(name)) return { kind: 'term', field: name as TermField };
  if (DATE_FIELDS.includes(name)) return { kind: 'date', field: name as DateField };
  if (name === 'container') return { kind: 'container' };
  if (name === 'data') return { kind: 'data' };
  if (name.startsWith(METADATA_PREFIX)) return { kind: 'metadata', key: metadataKey(name, position) };
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
