// The reference meaning of a query, evaluated in memory against one token. Every search adapter is
// property-tested against this, so it favours being obviously right over being fast.
import { DATA_SEARCHABLE_TYPES, type DateRangeNode, type QueryNode, type TermNode } from './query.ast';

/** What search sees of a token. `data_index` holds the token's evaluated search-index patterns. */
export interface SearchableToken {
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
      return inRange(node, node.field === 'created_at' ? token.created_at : token.modified_at);
  }
};

const matchesTerm = (node: TermNode, token: SearchableToken): boolean => {
  const actual = token[node.field];
  if (actual === null) return false;
  return node.field === 'fingerprint' ? actual === node.value : lower(actual) === lower(node.value);
};

// An unset modified_at is in no range, not even `[* TO *]`: that range asks for tokens that have the date.
const inRange = (node: DateRangeNode, instant: number | null): boolean =>
  instant !== null && (node.gte === null || instant >= node.gte) && (node.lt === null || instant < node.lt);

const lower = (text: string): string => text.toLowerCase();
