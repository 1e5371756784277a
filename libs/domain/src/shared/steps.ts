// Work done in steps: a generator that yields between costly items, so an async caller can give the event loop a turn.
//
// Validating 100 tokens (five Liquid evaluations each for the heaviest defaults) or rendering 100 filtered expressions
// can take longer than one turn of the event loop may (50 ms at most) and than the expression engine's
// shared render budget, which lasts one synchronous stretch. A handler drives the steps with
// `for (let s = steps.next(); !s.done; s = steps.next()) await setImmediate();` and takes `s.value`; runSteps drives
// them synchronously, for callers whose bodies are small.

export type Steps<T> = Generator<void, T, void>;

/** Runs every step at once and returns the result. */
export const runSteps = <T>(steps: Steps<T>): T => {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
};
