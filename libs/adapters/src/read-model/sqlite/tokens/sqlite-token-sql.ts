// Compiles the query AST to a SQL condition over `tokens t`. Values are always bound parameters, never spliced in.
// Terms on containers, metadata and data hashes go through `token_terms`. In a positive position a term becomes
// `t.rowid IN (…)`, which lets SQLite drive a selective query from the (tenant_id, field, value) index; under NOT it
// becomes a correlated NOT EXISTS, a point lookup per candidate row instead of materialising every match.
import type { QueryNode } from '@vault/domain';

export interface SqlCondition {
  sql: string;
  params: Array<string | number>;
}

const DATA_TYPES = ['social_security_number', 'employer_id_number', 'token'];

const TERM_COLUMNS = {
  id: 't.id',
  type: 't.type',
  fingerprint: 't.fingerprint',
  created_by: 't.created_by_l',
  modified_by: 't.modified_by_l',
} as const;

/** The smallest string greater than every string that starts with `prefix` (for range scans on an index). */
export const prefixUpperBound = (prefix: string): string =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

export function compileTokenQuery(node: QueryNode, tenantId: string, negated = false): SqlCondition {
  const termIn = (field: string, value: string): SqlCondition =>
    negated
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
      const parts = node.children.map((child) => compileTokenQuery(child, tenantId, negated));
      return {
        sql: `(${parts.map((p) => p.sql).join(node.kind === 'and' ? ' AND ' : ' OR ')})`,
        params: parts.flatMap((p) => p.params),
      };
    }
    case 'not': {
      // Every leaf compiles to a condition that is true or false, never NULL, so NOT is exact.
      const inner = compileTokenQuery(node.child, tenantId, !negated);
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
      return negated
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
      const column = node.field === 'created_at' ? 't.created_at_ms' : 't.modified_at_ms';
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
