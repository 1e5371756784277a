// Reading a request body's JSON text: parse, find where invalid JSON goes wrong, bound the nesting. Pure functions,
// none recursive, so no body can overflow the stack; none quotes the text in what it reports.

/** Arrays and objects a body may nest, the body itself included: `{"data":[[1]]}` nests 3. */
export const MAX_BODY_DEPTH = 64;

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; problem: string };

/** Parses `text`; when it is not JSON, or nests deeper than `maxDepth`, says why and where (never with an excerpt). */
export const readJsonText = (text: string, maxDepth = MAX_BODY_DEPTH): JsonTextResult => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // V8's own message quotes the text around the error: only our position and expectation are reported.
    const error = findJsonSyntaxError(text);
    return { ok: false, problem: error ? `is not valid JSON: expected ${error.expected} at ${where(error)}.` : 'is not valid JSON.' };
  }
  if (exceedsDepth(value, maxDepth)) return { ok: false, problem: `must not nest arrays and objects more than ${maxDepth} deep.` };
  return { ok: true, value };
};

export interface JsonSyntaxError {
  /** 0-based index of the offending character (UTF-16 units), `text.length` when the text ends too early. */
  position: number;
  /** 1-based. */
  line: number;
  /** 1-based, in characters from the start of the line. */
  column: number;
  /** What the grammar wanted there, in words (`',' or '}'`). */
  expected: string;
}

const where = ({ line, column, position }: JsonSyntaxError) => `line ${line}, column ${column} (character ${position})`;

/** True when `value` nests arrays and objects more than `max` deep; walks with its own stack and stops early. */
export const exceedsDepth = (value: unknown, max: number): boolean => {
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
};

type Expect = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose' | 'end';
const ARRAY = 0;
const OBJECT = 1;

/**
 * Where `text` stops being JSON (RFC 8259), or null when it is JSON. One pass with an explicit stack of open
 * containers, so any nesting depth is fine; called only once JSON.parse has failed.
 */
export const findJsonSyntaxError = (text: string): JsonSyntaxError | null => {
  const stack: number[] = [];
  let expect: Expect = 'value';
  let i = 0;
  const fail = (position: number, expected: string): JsonSyntaxError => locate(text, position, expected);
  const afterValue = (): Expect => (stack.length === 0 ? 'end' : 'commaOrClose');
  for (;;) {
    i = skipWhitespace(text, i);
    if (i >= text.length) return expect === 'end' ? null : fail(i, `${EXPECTED[expect]} before the end of the body`);
    const c = text[i];
    switch (expect) {
      case 'value':
      case 'valueOrClose': {
        if (expect === 'valueOrClose' && c === ']') {
          stack.pop();
          i++;
          expect = afterValue();
        } else if (c === '{' || c === '[') {
          stack.push(c === '{' ? OBJECT : ARRAY);
          i++;
          expect = c === '{' ? 'keyOrClose' : 'valueOrClose';
        } else {
          const end = scanPrimitive(text, i);
          if (typeof end !== 'number') return fail(end.at, end.expected);
          i = end;
          expect = afterValue();
        }
        break;
      }
      case 'key':
      case 'keyOrClose': {
        if (expect === 'keyOrClose' && c === '}') {
          stack.pop();
          i++;
          expect = afterValue();
        } else if (c === '"') {
          const end = scanString(text, i);
          if (typeof end !== 'number') return fail(end.at, end.expected);
          i = end;
          expect = 'colon';
        } else return fail(i, EXPECTED[expect]);
        break;
      }
      case 'colon':
        if (c !== ':') return fail(i, "':'");
        i++;
        expect = 'value';
        break;
      case 'commaOrClose': {
        const open = stack[stack.length - 1];
        if (c === ',') {
          i++;
          expect = open === OBJECT ? 'key' : 'value';
        } else if (c === (open === OBJECT ? '}' : ']')) {
          stack.pop();
          i++;
          expect = afterValue();
        } else return fail(i, open === OBJECT ? "',' or '}'" : "',' or ']'");
        break;
      }
      case 'end':
        return fail(i, 'the end of the body');
    }
  }
};

const EXPECTED: Record<Expect, string> = {
  value: 'a value',
  valueOrClose: "a value or ']'",
  key: 'a property name in double quotes',
  keyOrClose: "a property name in double quotes or '}'",
  colon: "':'",
  commaOrClose: "',' or a closing bracket",
  end: 'the end of the body',
};

type ScanFailure = { at: number; expected: string };

const skipWhitespace = (text: string, from: number): number => {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
};

const scanPrimitive = (text: string, i: number): number | ScanFailure => {
  const c = text[i];
  if (c === '"') return scanString(text, i);
  if (c === '-' || (c >= '0' && c <= '9')) return scanNumber(text, i);
  for (const literal of ['true', 'false', 'null']) {
    if (c === literal[0]) return text.startsWith(literal, i) ? i + literal.length : { at: i, expected: literal };
  }
  return { at: i, expected: 'a value' };
};

const HEX = /^[0-9a-fA-F]{4}$/;

/** From the opening quote at `i` to just past the closing one. */
const scanString = (text: string, i: number): number | ScanFailure => {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return { at: j, expected: 'a closing quote or an escaped control character' };
    if (c === 0x5c) {
      const escape = text[j + 1];
      if (escape === 'u') {
        if (!HEX.test(text.slice(j + 2, j + 6))) return { at: j, expected: 'four hexadecimal digits after \\u' };
        j += 6;
      } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) j += 2;
      else return { at: j, expected: 'a valid escape sequence' };
    } else j++;
  }
  return { at: text.length, expected: 'a closing quote before the end of the body' };
};

/** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? from `i`. */
const scanNumber = (text: string, i: number): number | ScanFailure => {
  let j = i;
  const digits = (from: number): number => {
    let k = from;
    while (k < text.length && text[k] >= '0' && text[k] <= '9') k++;
    return k;
  };
  if (text[j] === '-') j++;
  if (text[j] === '0') j++;
  else {
    const end = digits(j);
    if (end === j) return { at: j, expected: 'a digit' };
    j = end;
  }
  if (text[j] === '.') {
    const end = digits(j + 1);
    if (end === j + 1) return { at: j + 1, expected: 'a digit after the decimal point' };
    j = end;
  }
  if (text[j] === 'e' || text[j] === 'E') {
    j++;
    if (text[j] === '+' || text[j] === '-') j++;
    const end = digits(j);
    if (end === j) return { at: j, expected: 'a digit in the exponent' };
    j = end;
  }
  return j;
};

const locate = (text: string, position: number, expected: string): JsonSyntaxError => {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { position, line, column: position - lineStart + 1, expected };
};
