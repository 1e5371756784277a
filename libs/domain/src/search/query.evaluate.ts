// The reference meaning of a query, evaluated in memory against one token. Every search adapter is
// property-tested against this, so it favours being obviously right over being fast.
import { DATA_SEARCHABLE_TYPES, type DateField, type DateRangeNode, type QueryNode, type TermField, type TermNode } from './query.ast';
import { isExactField } from './query.fields';

/**
 * What search sees of a token: a property for each term and date field of SEARCH_FIELDS, under the field's name
 * (null while unset), the containers and metadata, and in `data_index` the token's evaluated search-index patterns.
 */
export interface SearchableToken extends Record<TermField, string | null>, Record<DateField, number | null> {
  id: string;
  type: string;
  fingerprint: string;
  containers: string[];
  metadata: Record<string, string>;
  created_by: string;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
  data_index: string[];
}

/** Whether the token matches the query; a `null` query (absent or blank) matches every token. */
export const evaluateQuery = (ast: QueryNode | null, token: SearchableToken): boolean =>
  ast === null || matches(ast, token);

const matches = (node: QueryNode, token: SearchableToken): boolean => {
  switch (node.kind) {
    case 'and':
      return node.children.every((child) => matches(child, token));
    case 'or':
      return node.children.some((child) => matches(child, token));
    case 'not':
      return !matches(node.child, token);
    case 'term':
      return matchesTerm(node, token);
    case 'container': {
      const path = lower(node.path);
      return token.containers.some((c) => (node.descendants ? lower(c).startsWith(path) : lower(c) === path));
    }
    case 'metadata':
      return Object.entries(token.metadata).some(
        ([key, value]) => lower(key) === lower(node.key) && lower(value) === lower(node.value),
      );
    case 'data':
      return (
        DATA_SEARCHABLE_TYPES.includes(lower(token.type)) &&
        token.data_index.some((pattern) => lower(pattern) === lower(node.value))
      );
    case 'date':
      return inRange(node, token[node.field]);
  }
};

const matchesTerm = (node: TermNode, token: SearchableToken): boolean => {
  const actual = token[node.field];
  if (actual === null) return false;
  return isExactField(node.field) ? actual === node.value : lower(actual) === lower(node.value);
};

// An unset date (modified_at of a never-modified token) is in no range, not even `[* TO *]`: that range asks for tokens that have the date.
const inRange = (node: DateRangeNode, instant: number | null): boolean =>
  instant !== null && (node.gte === null || instant >= node.gte) && (node.lt === null || instant < node.lt);

const lower = (text: string): string => text.toLowerCase();
