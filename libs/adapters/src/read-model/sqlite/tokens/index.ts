// Tokens in the embedded read model, and their search: what the rest of the code base uses of this folder.
export { tokensTable } from './tokens-table';
export { SqliteTokenSearchIndex, type SqliteSearchPlan, type SqliteTokenSearchOptions } from './token-search-index';
