// How a failed run's message and a run's result are bounded before they reach the caller.

/** Largest `raw` (and `tokenize`) a reactor may return, serialised as JSON in UTF-8: 1 MiB. */
export const MAX_REACTOR_RESULT_BYTES = 1024 * 1024;

/** Longest message of a failed run, in UTF-16 code units (JavaScript string length). */
export const MAX_REACTOR_MESSAGE_LENGTH = 500;

/** `message` cut to MAX_REACTOR_MESSAGE_LENGTH, ending in `…` when cut, without splitting a surrogate pair. */
export const reactorMessage = (message: string): string => {
  if (message.length <= MAX_REACTOR_MESSAGE_LENGTH) return message;
  let end = MAX_REACTOR_MESSAGE_LENGTH - 1;
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${message.slice(0, end)}…`;
};
