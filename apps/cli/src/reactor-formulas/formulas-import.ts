// `formulas import <file-or-dir>`: the operator's upsert of official reactor formulas from JSON files (one formula each).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ImportOutcome } from '@vault/application';
import { DomainError } from '@vault/domain';
import { UsageError } from '../program';

export interface ImportReport {
  imported: Array<ImportOutcome & { file: string }>;
  failed: Array<{ file: string; error: string; errors?: Record<string, string[]> }>;
}

/** The formula files `path` names: itself, or the .json files of a folder in name order. */
export function formulaFiles(path: string): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new UsageError(`No such file or directory: ${path}`);
  }
  if (!stat.isDirectory()) return [path];
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
  if (files.length === 0) throw new UsageError(`No .json files in ${path}`);
  return files;
}

/** Imports each of `files` through `importOne` (the ImportOfficialFormulaCommand's handler, via the bus). */
export async function importFormulas(
  importOne: (file: unknown) => Promise<ImportOutcome>,
  files: string[],
  log: (line: string) => void,
): Promise<ImportReport> {
  const report: ImportReport = { imported: [], failed: [] };
  for (const file of files) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      const outcome = await importOne(parsed);
      report.imported.push({ ...outcome, file: basename(file) });
      log(`${basename(file)}: ${outcome.result} "${outcome.name}" (${outcome.id})`);
    } catch (error) {
      const message = error instanceof SyntaxError ? `not valid JSON: ${error.message}` : error instanceof Error ? error.message : String(error);
      const errors = error instanceof DomainError ? error.errors : undefined;
      report.failed.push({ file: basename(file), error: message, ...(errors ? { errors } : {}) });
      log(`${basename(file)}: FAILED ${message}${errors ? ' ' + JSON.stringify(errors) : ''}`);
    }
  }
  return report;
}
