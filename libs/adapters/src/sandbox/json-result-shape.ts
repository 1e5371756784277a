// Bounds on the size of a reactor's result as parsed JSON, so that decoding it again in the API's process (it comes
// over the child's IPC channel as JSON) holds the API's event loop for a few milliseconds at most.

/**
 * JSON values (arrays, objects, strings, numbers, booleans, nulls; keys are not values) and object members a reactor's
 * `raw`, and its `tokenize`, may hold: the caps on request bodies (apps/api/src/http/json-text.ts MAX_BODY_VALUES and
 * MAX_BODY_MEMBERS, restated here since adapters do not import the app). 90,000 distinct keys in under 1 MiB took the
 * API 73 to 84 ms to decode.
 */
export const MAX_RESULT_VALUES = 100_000;
export const MAX_RESULT_MEMBERS = 20_000;

/** Whether `value` (parsed JSON) holds more values or object members than the caps; stops counting past them. */
export const exceedsResultShape = (value: unknown, maxValues = MAX_RESULT_VALUES, maxMembers = MAX_RESULT_MEMBERS): boolean => {
  let values = 0;
  let members = 0;
  // Iterative: a deeply nested result must not overflow the stack here.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (++values > maxValues) return true;
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const key in next) {
        if (++members > maxMembers) return true;
        pending.push((next as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
};
