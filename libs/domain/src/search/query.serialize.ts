// Writes an AST back as query text that parses to the same AST: every value quoted, dates as full
// date-times, parentheses only where precedence needs them.
import type { QueryNode } from './query.ast';
import { serializeDateRange } from './query.dates';

/** The inverse of parseQuery: `parseQuery(serializeQuery(ast))` deep-equals `ast`; `null` is the empty query. */
export const serializeQuery = (node: QueryNode | null): string => (node === null ? '' : serialize(node));

const serialize = (node: QueryNode): string => {
  switch (node.kind) {
    case 'or':
      // AND binds tighter than OR, so `and` children need no parentheses here.
      return node.children.map(serialize).join(' OR ');
    case 'and':
      return node.children.map(andOperand).join(' AND ');
    case 'not':
      return `NOT ${notOperand(node.child)}`;
    case 'term':
      return `${node.field}:${quote(node.value)}`;
    case 'container':
      return `container:${quote(node.descendants ? `${node.path}*` : node.path)}`;
    case 'metadata':
      return `metadata.${node.key}:${quote(node.value)}`;
    case 'data':
      return `data:${quote(node.value)}`;
    case 'date':
      return serializeDateRange(node);
  }
};

// OR binds looser than AND, so an `or` inside an `and` keeps its parentheses.
const andOperand = (node: QueryNode): string => (node.kind === 'or' ? `(${serialize(node)})` : serialize(node));

// NOT binds tightest, so any and/or under it keeps its parentheses.
const notOperand = (node: QueryNode): string =>
  node.kind === 'and' || node.kind === 'or' ? `(${serialize(node)})` : serialize(node);

const quote = (value: string): string => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
