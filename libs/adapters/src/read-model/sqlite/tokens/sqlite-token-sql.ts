// Compiles the query AST to a SQL condition over `tokens t`. Values are always bound parameters, never spliced in.
// Terms on containers, metadata and data hashes go through `token_terms`. A selective term in a positive position
// becomes `t.rowid IN (…)`, which lets SQLite drive the query from the (tenant_id, field, value) index. A broad one, or
// any term under NOT, becomes a correlated EXISTS: a point lookup per candidate row while SQLite walks tokens in
// created_at order, so a page of a large result stops after 20 matches instead of sorting every match.
import { DATA_SEARCHABLE_TYPES as DATA_TYPES, type DateField, type QueryNode, type TermField } from '@vault/domain';

export interface SqlCondition {
  sql: string;
  params: Array<string | number>;
}

// The column of each term and date field (see the tokens table in sqlite-tokens.ts). Term columns hold lower-cased
// values except for exact fields (fingerprint), as the parser's values are: equality is the evaluator's comparison.
const TERM_COLUMNS: Record<TermField, string> = {
  id: 't.id',
  type: 't.type',
  fingerprint: 't.fingerprint',
  created_by: 't.created_by_l',
  modified_by: 't.modified_by_l',
};

/** Epoch milliseconds, NULL while the date is unset. */
const DATE_COLUMNS: Record<DateField, string> = {
  created_at: 't.created_at_ms',
  modified_at: 't.modified_at_ms',
};

/** The smallest string greater than every string that starts with `prefix` (for range scans on an index). */
export const prefixUpperBound = (prefix: string): string =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** A term on token_terms: one value, or the range of container paths under a prefix. */
export type TermLookup = { field: string; value: string } | { field: 'container'; from: string; to: string };

export interface CompileOptions {
  negated?: boolean;
  /** Whether a term matches few enough tokens to drive the query from token_terms. Default: always. */
  selective?: (lookup: TermLookup) => boolean;
}

export function compileTokenQuery(node: QueryNode, tenantId: string, options: CompileOptions = {}): SqlCondition {
  const negated = options.negated ?? false;
  const drive = (lookup: TermLookup) => !negated && (options.selective?.(lookup) ?? true);
  const termIn = (field: string, value: string): SqlCondition =>
    !drive({ field, value })
      ? {
          sql: 'EXISTS (SELECT 1 FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ? AND token_rowid = t.rowid)',
          params: [tenantId, field, value],
        }
      : {
          sql: 't.rowid IN (SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ?)',
          params: [tenantId, field, value],
        };
  switch (node.kind) {
    case 'and':
    case 'or': {
      const parts = node.children.map((child) => compileTokenQuery(child, tenantId, options));
      return {
        sql: `(${parts.map((p) => p.sql).join(node.kind === 'and' ? ' AND ' : ' OR ')})`,
        params: parts.flatMap((p) => p.params),
      };
    }
    case 'not': {
      // Every leaf compiles to a condition that is true or false, never NULL, so NOT is exact.
      const inner = compileTokenQuery(node.child, tenantId, { ...options, negated: !negated });
      return { sql: `NOT ${inner.sql}`, params: inner.params };
    }
    case 'term': {
      const column = TERM_COLUMNS[node.field];
      return { sql: `(${column} IS NOT NULL AND ${column} = ?)`, params: [node.value] };
    }
    case 'container':
      if (!node.descendants) return termIn('container', node.path);
      // Every token has at least one container and every container starts with '/'.
      if (node.path === '/') return { sql: '1', params: [] };
      return !drive({ field: 'container', from: node.path, to: prefixUpperBound(node.path) })
        ? {
            sql: "EXISTS (SELECT 1 FROM token_terms WHERE tenant_id = ? AND field = 'container' AND value >= ? AND value < ? AND token_rowid = t.rowid)",
            params: [tenantId, node.path, prefixUpperBound(node.path)],
          }
        : {
            sql: "t.rowid IN (SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = 'container' AND value >= ? AND value < ?)",
            params: [tenantId, node.path, prefixUpperBound(node.path)],
          };
    case 'metadata':
      return termIn(`metadata.${node.key}`, node.value);
    case 'data': {
      const inner = termIn('data', node.value);
      return { sql: `(${inner.sql} AND t.type IN (${DATA_TYPES.map(() => '?').join(', ')}))`, params: [...inner.params, ...DATA_TYPES] };
    }
    case 'date': {
      const column = DATE_COLUMNS[node.field];
      const parts = [`${column} IS NOT NULL`];
      const params: number[] = [];
      if (node.gte !== null) {
        parts.push(`${column} >= ?`);
        params.push(node.gte);
      }
      if (node.lt !== null) {
        parts.push(`${column} < ?`);
        params.push(node.lt);
      }
      return { sql: `(${parts.join(' AND ')})`, params };
    }
  }
}
