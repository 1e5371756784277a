// The expression language of fingerprints, masks and search indexes (Liquid), as the domain needs it.

/**
 * Synchronous on purpose: evaluation happens inside validation and preparation, which are plain functions.
 * Implementations cache parsed expressions, bound their work (render time, memory) and never read files.
 */
export interface ExpressionEngine {
  /** Null when `expression` parses (unknown filters included); else a parse error message naming the position. */
  validate(expression: string): string | null;
  /**
   * Renders `expression` with `data` bound to the Liquid variable `data` (the JSON value: `{{ data.name }}` works for
   * objects). Values that are not strings render as JSON, so a list renders as a JSON array and `null` as nothing.
   * Throws an Error for an unparsable expression or a failed render; its message never contains the data.
   */
  evaluate(expression: string, data: unknown): string;
}
