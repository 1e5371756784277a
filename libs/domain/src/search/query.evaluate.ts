// The reference meaning of a query, evaluated in memory against one token's terms (token-terms.ts). Every search
// adapter is property-tested against this, so it favours being obviously right over being fast.
import { DATA_SEARCHABLE_TYPES, type DateRangeNode, type QueryNode, type TermNode } from './query.ast';
import { isExactField } from './query.fields';
import { type SearchableToken, type TokenTerms, tokenTerms } from './token-terms';

/** Whether the token matches the query; a `null` query (absent or blank) matches every token. */
export const evaluateQuery = (ast: QueryNode | null, token: SearchableToken): boolean =>
  ast === null || matches(ast, tokenTerms(token));

const matches = (node: QueryNode, terms: TokenTerms): boolean => {
  switch (node.kind) {
    case 'and':
      return node.children.every((child) => matches(child, terms));
    case 'or':
      return node.children.some((child) => matches(child, terms));
    case 'not':
      return !matches(node.child, terms);
    case 'term':
      return matchesTerm(node, terms);
    case 'container': {
      const path = lower(node.path);
      return terms.container.some((c) => (node.descendants ? c.startsWith(path) : c === path));
    }
    case 'metadata':
      return terms['metadata.<key>'].some(([key, value]) => key === lower(node.key) && value === lower(node.value));
    case 'data':
      return (
        terms.type !== null && DATA_SEARCHABLE_TYPES.includes(terms.type) && terms.data.includes(lower(node.value))
      );
    case 'date':
      return inRange(node, terms[node.field]);
  }
};

const matchesTerm = (node: TermNode, terms: TokenTerms): boolean => {
  const actual = terms[node.field];
  return actual !== null && actual === (isExactField(node.field) ? node.value : lower(node.value));
};

// An unset date (modified_at of a never-modified token) is in no range, not even `[* TO *]`: that range asks for tokens that have the date.
const inRange = (node: DateRangeNode, instant: number | null): boolean =>
  instant !== null && (node.gte === null || instant >= node.gte) && (node.lt === null || instant < node.lt);

const lower = (text: string): string => text.toLowerCase();
