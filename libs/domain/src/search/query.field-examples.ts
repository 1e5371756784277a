// TEST SUPPORT ONLY (never exported from index.ts): for every field of SEARCH_FIELDS, a query that one token matches and
// another does not. The domain's specs and each search adapter's run all of them, so a field added to the table is
// parsed, evaluated and compiled by every engine before anything else is written for it.
import { isExactField, isFieldOfKind, SEARCH_FIELDS, type SearchField, type SearchFieldKind } from './query.fields';
import { type SearchableToken, tokenTerms } from './token-terms';

/** The token every example query matches. */
export const matchingToken: SearchableToken = {
  id: '0b9e3f5c-6f3c-4f7e-9d1a-2c4b6a8e0f11',
  type: 'social_security_number',
  fingerprint: '8FkQz3vP',
  containers: ['/pii/high/'],
  metadata: { Customer: 'ACME' },
  search_hashes: ['123-45-6789', '6789'],
  created_by: 'App-One',
  created_at: '2024-01-15T10:00:00.000Z',
  modified_by: 'App-Two',
  modified_at: '2024-03-01T12:00:00.000Z',
};

/** A token no example query matches: every value differs (an exact field's by case alone) or is unset. */
export const otherToken: SearchableToken = {
  id: '7d2c1b0a-3e4f-4a5b-8c6d-9e0f1a2b3c4d',
  type: 'card_number',
  fingerprint: '8fkqz3vp',
  containers: ['/pci/high/'],
  metadata: { customer: 'other' },
  // The same hash as matchingToken's: a card number's data is never searched.
  search_hashes: ['6789'],
  created_by: 'app-two',
  created_at: '2024-02-01T00:00:00.000Z',
  modified_by: null,
  modified_at: null,
};

export interface FieldExample {
  field: SearchField;
  /** Matches matchingToken, not otherToken. */
  query: string;
}

// The kinds whose fields the examples cannot derive from matchingToken; a new kind needs its example here.
const FIXED_QUERIES: Record<Exclude<SearchFieldKind, 'term' | 'date'>, string> = {
  container: 'container:"/pii/*"',
  data: 'data:6789',
  metadata: 'metadata.customer:acme',
};

const matchingTerms = tokenTerms(matchingToken);

const exampleQuery = (field: SearchField): string => {
  if (isFieldOfKind(field, 'term')) {
    const value = matchingTerms[field];
    if (value === null) throw new Error(`matchingToken must set ${field}`);
    // Case-insensitive fields are asked in upper case, so the example also shows they ignore case.
    return `${field}:"${isExactField(field) ? value : value.toUpperCase()}"`;
  }
  if (isFieldOfKind(field, 'date')) {
    const instant = matchingTerms[field];
    if (instant === null) throw new Error(`matchingToken must set ${field}`);
    // A bare date covers its whole UTC day; otherToken's dates fall on other days or are unset.
    return `${field}:${new Date(instant).toISOString().slice(0, 10)}`;
  }
  return FIXED_QUERIES[SEARCH_FIELDS[field].kind];
};

/** One example per field of SEARCH_FIELDS, in the table's order. */
export const fieldExamples: readonly FieldExample[] = (Object.keys(SEARCH_FIELDS) as SearchField[]).map((field) => ({
  field,
  query: exampleQuery(field),
}));
