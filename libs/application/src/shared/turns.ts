// Long work in steps, with a turn of the event loop between them, so that no request holds it for long.
import type { Steps } from '@vault/domain';

/** Lets the event loop run what is waiting (timers, I/O) before going on: awaiting a settled promise would not. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Drives the domain's steps (tokenize/steps.ts), giving the event loop, and the expression engine's budget, a turn between them. */
export const inTurns = async <T>(steps: Steps<T>): Promise<T> => {
  let step = steps.next();
  for (; !step.done; step = steps.next()) await nextTurn();
  return step.value;
};
