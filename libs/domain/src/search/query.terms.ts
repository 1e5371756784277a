// Turns `field:value` into a node: checks the value against the field's rules and applies its case rule.
import type { QueryNode } from './query.ast';
import { bareDateNode } from './query.dates';
import { QueryError } from './query.errors';
import { type FieldTarget, isExactField } from './query.fields';
import type { Token } from './query.lexer';

// The paths tokens may be stored under (after lower-casing); a path outside this shape can never match.
const CONTAINER_PATH = /^\/([a-z0-9_-]+\/)*$/;

export const termNode = (target: FieldTarget, token: Token): QueryNode => {
  const position = token.start + 1;
  if (token.value === '') throw new QueryError('Empty value', position, 'a non-empty value');
  if (!token.quoted && target.kind !== 'container' && token.value.startsWith('/')) {
    const expected = 'an exact value (quote values that start with "/")';
    throw new QueryError('Unsupported regular expression', position, expected);
  }
  const descendants = target.kind === 'container' && token.value.endsWith('*');
  const value = descendants ? token.value.slice(0, -1) : token.value;
  if (value.includes('*')) throw wildcard(target, token.start + token.text.indexOf('*') + 1);

  switch (target.kind) {
    case 'term':
      return { kind: 'term', field: target.field, value: isExactField(target.field) ? value : value.toLowerCase() };
    case 'container':
      return containerNode(value.toLowerCase(), descendants, position);
    case 'metadata':
      return { kind: 'metadata', key: target.key, value: value.toLowerCase() };
    case 'data':
      return { kind: 'data', value: value.toLowerCase() };
    case 'date':
      return bareDateNode(target.field, token);
  }
};

const containerNode = (path: string, descendants: boolean, position: number): QueryNode => {
  if (!CONTAINER_PATH.test(path)) {
    throw new QueryError(
      'Invalid container path',
      position,
      'a path that starts and ends with "/" and has segments of a-z, 0-9, "_" or "-", e.g. /pii/high/ or /pii/*',
    );
  }
  return { kind: 'container', path, descendants };
};

const wildcard = (target: FieldTarget, position: number): QueryError =>
  new QueryError(
    'Unsupported wildcard "*"',
    position,
    target.kind === 'container'
      ? 'a single "*" only at the end of a container path, e.g. /pii/*'
      : 'an exact value ("*" is only allowed at the end of a container path)',
  );
