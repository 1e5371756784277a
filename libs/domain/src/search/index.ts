// Token search queries: parse the Lucene-style text, write an AST back as text, evaluate it in memory against the terms
// a token gives (token-terms.ts), which every search adapter indexes.
// query.arbitrary.ts is test support and deliberately not exported here.
export * from './query.ast';
export { QueryError } from './query.errors';
export {
  DATE_FIELDS,
  isExactField,
  listNames,
  SEARCH_FIELDS,
  TERM_FIELDS,
  type SearchField,
  type SearchFieldKind,
  type SearchFieldOfKind,
  type SearchFieldSpec,
} from './query.fields';
export { MAX_QUERY_DEPTH, MAX_QUERY_LENGTH, MAX_QUERY_TERMS, parseQuery } from './query.parse';
export { serializeQuery } from './query.serialize';
export { evaluateQuery } from './query.evaluate';
export { TOKEN_TERMS, tokenTerms, type SearchableToken, type TermsOf, type TermsOfKind, type TokenTerms } from './token-terms';
