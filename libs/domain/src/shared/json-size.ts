// How much parsed JSON holds, counted without recursion and stopping once past a bound: the one count behind the
// bounds on request bodies (counted on their text, apps/api/src/http/json-text.ts), on a reactor's result (in its
// child process) and on a reactor's detokenized args.

/**
 * JSON values (arrays, objects, strings, numbers, booleans, nulls; object keys are not values) and object members a
 * request body or a reactor's result may hold: past them, JSON.parse alone holds the event loop for tens of
 * milliseconds (350,000 empty objects or 100,000 distinct keys in 1 MiB take 50 to 100 ms).
 */
export const MAX_JSON_VALUES = 100_000;
export const MAX_JSON_MEMBERS = 20_000;

/** Whether `value` holds more than `maxValues` values or `maxMembers` object members; stops counting past either. */
export const exceedsJsonSize = (value: unknown, maxValues = MAX_JSON_VALUES, maxMembers = MAX_JSON_MEMBERS): boolean => {
  let values = 0;
  let members = 0;
  // Iterative: a deeply nested value must not overflow the stack here.
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
