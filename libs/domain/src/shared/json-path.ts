// A safe subset of JSONPath (RFC 9535), parsed by hand and never evaluated as code: where a proxy's transforms find a
// field of a JSON body, and what the `json` filter of expressions selects inside token data.

export const MAX_JSON_PATH_LENGTH = 1_000;

export type JsonPathStep = { key: string } | { index: number };

/** A path that is not in the subset: where, and what was expected. The message names no part of the path. */
export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathError';
  }
}

/**
 * The root `$`, then any number of `.name` (a letter, `_` or non-ASCII character, then those or digits), `['name']` or
 * `["name"]` (with the RFC's backslash escapes) and `[n]` (an index; negative counts from the end: `[-1]` is the last
 * item). Blanks are allowed inside brackets. Everything else (`..`, `*`, filters, slices, unions) is a JsonPathError
 * naming the position.
 */
export const parseJsonPath = (path: string): JsonPathStep[] => {
  if (path.length > MAX_JSON_PATH_LENGTH) {
    throw new JsonPathError(`the path must be at most ${MAX_JSON_PATH_LENGTH.toLocaleString('en-US')} characters.`);
  }
  const fail = (at: number, problem: string): never => {
    throw new JsonPathError(`${problem} at character ${at + 1} of the path. Use $, .name, ['name'] or [n].`);
  };
  if (!path.startsWith('$')) fail(0, 'the path must start with $');
  const steps: JsonPathStep[] = [];
  let at = 1;
  const blanks = () => {
    while (at < path.length && ' \t\n\r'.includes(path[at])) at++;
  };
  while (at < path.length) {
    if (path[at] === '.') {
      MEMBER_NAME.lastIndex = at + 1;
      const name = MEMBER_NAME.exec(path);
      if (!name) fail(at + 1, path[at + 1] === '.' ? 'descendant segments (..) are not supported' : 'expected a name');
      steps.push({ key: name![0] });
      at += 1 + name![0].length;
    } else if (path[at] === '[') {
      at++;
      blanks();
      const quote = path[at];
      if (quote === "'" || quote === '"') {
        const read = readQuoted(path, at, fail);
        steps.push({ key: read.text });
        at = read.end;
      } else {
        INDEX.lastIndex = at;
        const index = INDEX.exec(path);
        if (!index) fail(at, 'expected a quoted name or an integer index');
        steps.push({ index: Number(index![0]) });
        at += index![0].length;
      }
      blanks();
      if (path[at] !== ']') fail(at, 'expected ]');
      at++;
    } else {
      fail(at, 'expected . or [');
    }
  }
  return steps;
};

const MEMBER_NAME = /[A-Za-z_\u0080-\uFFFF][A-Za-z0-9_\u0080-\uFFFF]*/y;
/** An index without leading zeros and at most 15 digits (exact as a double), negative or not. */
const INDEX = /(?:0|-?[1-9]\d{0,14})(?!\d)/y;
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'", '"': '"' };

/** Reads a quoted name from its opening quote; returns its text and the index after the closing quote. */
const readQuoted = (path: string, open: number, fail: (at: number, problem: string) => never): { text: string; end: number } => {
  const quote = path[open];
  let text = '';
  let at = open + 1;
  while (at < path.length && path[at] !== quote) {
    if (path[at] !== '\\') {
      text += path[at++];
      continue;
    }
    const escape = path[at + 1];
    if (escape === 'u' && /^[0-9A-Fa-f]{4}$/.test(path.slice(at + 2, at + 6))) {
      text += String.fromCharCode(parseInt(path.slice(at + 2, at + 6), 16));
      at += 6;
    } else if (escape !== undefined && Object.hasOwn(ESCAPES, escape)) {
      text += ESCAPES[escape];
      at += 2;
    } else {
      fail(at, 'invalid escape in a quoted name');
    }
  }
  if (at >= path.length) fail(open, 'a quoted name is not closed');
  return { text, end: at + 1 };
};

/** Walks the steps through own properties and array items only; a step that finds nothing gives null. */
export const selectJsonPath = (value: unknown, steps: readonly JsonPathStep[]): unknown => {
  let current = value;
  for (const step of steps) {
    if ('index' in step) {
      if (!Array.isArray(current)) return null;
      const index = step.index < 0 ? current.length + step.index : step.index;
      if (index < 0 || index >= current.length) return null;
      current = current[index];
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, step.key)) {
        return null;
      }
      current = (current as Record<string, unknown>)[step.key];
    }
  }
  return current === undefined ? null : current;
};

/**
 * Replaces the value the steps find (through own properties and array items only) by what `replace` makes of it, in
 * place. Returns false, changing nothing, when the steps find nothing or point at the root.
 */
export const replaceAtJsonPath = (root: unknown, steps: readonly JsonPathStep[], replace: (value: unknown) => unknown): boolean => {
  if (steps.length === 0) return false;
  const parent = selectJsonPath(root, steps.slice(0, -1));
  const last = steps[steps.length - 1];
  if ('index' in last) {
    if (!Array.isArray(parent)) return false;
    const index = last.index < 0 ? parent.length + last.index : last.index;
    if (index < 0 || index >= parent.length) return false;
    parent[index] = replace(parent[index]);
    return true;
  }
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent) || !Object.hasOwn(parent, last.key)) return false;
  Object.defineProperty(parent, last.key, { value: replace((parent as Record<string, unknown>)[last.key]), enumerable: true, writable: true, configurable: true });
  return true;
};
