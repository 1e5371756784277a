// The rebuild's rows for new tokens: the row and the token_terms rows tokensTable.upsert writes for a token not in the
// file yet, as multi-row INSERTs, with the rowids the upserts would have been given (log order). No token_changes
// entries: a rebuilt file has none (every process reloads its search state after the swap). sqlite-rebuild-store.spec.ts
// holds them to upsert's rows.
import type { TokenDocument } from '@vault/application';
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import type { BulkRows } from '../bulk-writer-thread';
import type { BulkDocument, BulkWriter } from '../sqlite-collection';
import { TOKEN_COLUMNS, tokenRows } from './token-row';

const TOKEN_INSERT = `INSERT INTO tokens (rowid, ${TOKEN_COLUMNS.join(', ')})`;
const TOKEN_WIDTH = 1 + TOKEN_COLUMNS.length;
const TERM_INSERT = 'INSERT INTO token_terms (tenant_id, field, value, token_rowid)';
const TERM_WIDTH = 4;

/**
 * The rowid SQLite gives the next inserted token: one past the largest in the table, or with AUTOINCREMENT one past
 * the largest ever given (sqlite_sequence), whichever is larger.
 */
function nextRowid(db: SqliteDatabase): number {
  const max = (statement(db, 'SELECT MAX(rowid) AS n FROM tokens').get() as { n: number | null }).n ?? 0;
  const hasSequence = statement(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
  const seq = hasSequence ? ((statement(db, "SELECT seq FROM sqlite_sequence WHERE name = 'tokens'").get() as { seq: number } | undefined)?.seq ?? 0) : 0;
  return Math.max(max, seq) + 1;
}

/** tokensTable's bulk writer: rows for tokens absent from the file, numbered on from the file's next rowid. */
export function tokensBulkWriter(db: SqliteDatabase): BulkWriter {
  let rowid = nextRowid(db);
  return {
    rowsOf(docs: BulkDocument[]): BulkRows[] {
      const tokens: unknown[] = [];
      const terms: unknown[] = [];
      for (const { revision, doc: raw } of docs) {
        const doc = raw as unknown as TokenDocument;
        const { row, postings } = tokenRows(doc, revision);
        tokens.push(rowid, ...row);
        for (const [field, value] of postings) terms.push(doc.tenant_id, field, value, rowid);
        rowid += 1;
      }
      return [
        { head: TOKEN_INSERT, width: TOKEN_WIDTH, values: tokens },
        { head: TERM_INSERT, width: TERM_WIDTH, values: terms },
      ];
    },
  };
}
