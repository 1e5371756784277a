// The one query AST: the parser produces it, the reference evaluator runs it, and each search adapter
// compiles it to its own engine (bitmap operations, a Meilisearch filter). Values arrive already normalised, so
// compilers never re-apply the case rules.
import { DATA_SEARCH_TOKEN_TYPES } from '../tokens/token-types';
import type { DateField, TermField } from './query.fields';

/** Both come from SEARCH_FIELDS (query.fields.ts), the one list of searchable fields. */
export type { DateField, TermField };

export type QueryNode =
  | AndNode
  | OrNode
  | NotNode
  | TermNode
  | ContainerNode
  | MetadataNode
  | DataNode
  | DateRangeNode;

/** n-ary with at least two children; never holds another `and` directly (the parser flattens). */
export interface AndNode {
  kind: 'and';
  children: QueryNode[];
}

/** n-ary with at least two children; never holds another `or` directly (the parser flattens). */
export interface OrNode {
  kind: 'or';
  children: QueryNode[];
}

export interface NotNode {
  kind: 'not';
  child: QueryNode;
}

/** `value` is lower-cased, except for `fingerprint`, which matches exactly. */
export interface TermNode {
  kind: 'term';
  field: TermField;
  value: string;
}

/** `path` is lower-cased and keeps its slashes; `descendants` means a trailing `*` was given. */
export interface ContainerNode {
  kind: 'container';
  path: string;
  descendants: boolean;
}

/** Both `key` and `value` are lower-cased. */
export interface MetadataNode {
  kind: 'metadata';
  key: string;
  value: string;
}

/** Lower-cased; matches one evaluated search index of a token whose type supports data search. */
export interface DataNode {
  kind: 'data';
  value: string;
}

/** Epoch milliseconds, half-open `[gte, lt)`; `null` leaves that side open. `gte >= lt` matches nothing. */
export interface DateRangeNode {
  kind: 'date';
  field: DateField;
  gte: number | null;
  lt: number | null;
}

/** Token types whose data may be searched; a `data` term never matches a token of any other type. */
export const DATA_SEARCHABLE_TYPES: readonly string[] = DATA_SEARCH_TOKEN_TYPES;
