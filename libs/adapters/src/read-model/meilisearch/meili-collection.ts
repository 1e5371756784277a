// How one projection collection is kept in Meilisearch: one document per projection document, holding the original
// as JSON plus the flat fields its queries filter and sort on (the Meilisearch twin of sqlite-collection.ts).
import type { Settings } from 'meilisearch';

/** What a collection's index needs beyond the defaults every index gets (see meiliIndexSettings). */
export interface MeiliCollectionSettings {
  filterableAttributes: string[];
  sortableAttributes: string[];
  /** Default ['id']: queries never use full-text search, so nothing else is worth indexing for it. */
  searchableAttributes?: string[];
}

export type MeiliDocument = Record<string, unknown> & { id: string; _revision: number };

export interface MeiliCollection {
  name: string;
  settings: MeiliCollectionSettings;
  toDocument(id: string, revision: bigint, doc: Record<string, unknown>): MeiliDocument;
  fromDocument(hit: Record<string, unknown>): Record<string, unknown>;
  /** The filter selecting every document of a tenant, for a deleted tenant's purge; absent for `tenants` itself. */
  tenantFilter?(tenantId: string): string;
}

type FieldValue = string | number | boolean | null;

/** The projection document, kept verbatim. A string, not an object, so arbitrary keys never add index fields. */
const SOURCE = 'doc';
const RESERVED = new Set(['id', '_revision', SOURCE]);

/** A collection stored as one index: `fields` are extracted from the document for filters and sorting. */
export function meiliDocumentIndex(
  name: string,
  fields: Record<string, (doc: Record<string, unknown>) => FieldValue>,
  settings: MeiliCollectionSettings,
): MeiliCollection {
  for (const field of Object.keys(fields)) {
    if (RESERVED.has(field) || field.startsWith('_')) throw new Error(`Field name "${field}" is reserved in ${name}`);
  }
  return {
    name,
    settings,
    toDocument(id, revision, doc) {
      const document: MeiliDocument = { id, _revision: Number(revision), [SOURCE]: JSON.stringify(doc) };
      for (const [field, value] of Object.entries(fields)) document[field] = value(doc);
      return document;
    },
    fromDocument(hit) {
      return JSON.parse(hit[SOURCE] as string);
    },
  };
}

// maxTotalHits defaults to 1000 and caps both how deep a page can go and how far totalHits counts.
export const MAX_TOTAL_HITS = 1_000_000_000;

/** Full settings of a collection index: exact totals, exact matching, order decided by the query's sort alone. */
export function meiliIndexSettings(settings: MeiliCollectionSettings): Settings {
  return {
    filterableAttributes: [...new Set(['id', ...settings.filterableAttributes])],
    sortableAttributes: [...settings.sortableAttributes],
    searchableAttributes: settings.searchableAttributes ?? ['id'],
    typoTolerance: { enabled: false },
    pagination: { maxTotalHits: MAX_TOTAL_HITS },
    // `sort` first: with an explicit sort, relevance never reorders hits.
    rankingRules: ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness'],
  };
}

/**
 * A string literal for a filter expression. Meilisearch unescapes `\\` and `\"` inside double quotes (v1.4 and later),
 * so any value, including one with quotes, `OR` or brackets, stays one literal and cannot change the expression.
 */
export function meiliQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Epoch milliseconds of an ISO timestamp, for numeric sorting and ranges; null when absent or not a date. */
export function epochMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
