// Reading a request body's JSON text: parse, find where invalid JSON goes wrong, bound the nesting. Nothing here
// recurses, so no body can overflow the stack, and nothing quotes the text in what it reports.
import { MAX_JSON_MEMBERS, MAX_JSON_VALUES } from '@vault/domain';

/** Arrays and objects a body may nest, the body itself included: `{"data":[[1]]}` nests 3. */
export const MAX_BODY_DEPTH = 64;
/** JSON values and object members a body may hold (the domain's bounds; every endpoint's own limits are far below). */
export const MAX_BODY_VALUES = MAX_JSON_VALUES;
export const MAX_BODY_MEMBERS = MAX_JSON_MEMBERS;

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Parses `text`; when it nests deeper than `maxDepth`, or is not JSON, says why and where (never with an excerpt).
 * The depth is read from the text before parsing (building half a million nested arrays only to refuse them would
 * hold the event loop for a hundred milliseconds), and where invalid JSON fails is found in slices.
 */
export const readJsonText = async (text: string, maxDepth = MAX_BODY_DEPTH): Promise<JsonTextResult> => {
  const shape = measureJsonText(text, maxDepth);
  if (shape.tooDeep) return { ok: false, problem: `must not nest arrays and objects more than ${maxDepth} deep.` };
  if (shape.values > MAX_BODY_VALUES) return { ok: false, problem: `must not hold more than ${MAX_BODY_VALUES} JSON values.` };
  if (shape.members > MAX_BODY_MEMBERS) return { ok: false, problem: `must not hold more than ${MAX_BODY_MEMBERS} object members.` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // V8's own message quotes the text around the error: only our position and expectation are reported.
    const error = await findJsonSyntaxErrorInSlices(text);
    return { ok: false, problem: error ? `is not valid JSON: expected ${error.expected} at ${where(error)}.` : 'is not valid JSON.' };
  }
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * True when brackets and braces outside strings open more than `max` deep at some point of `text`. Exact for JSON;
 * for text that is not JSON it is what the brackets say, and JSON.parse refuses the rest.
 */
export const textNestsDeeper = (text: string, max: number): boolean => measureJsonText(text, max).tooDeep;

export interface JsonTextShape {
  /** Brackets and braces opened deeper than the limit somewhere (the scan stops there). */
  tooDeep: boolean;
  /** Arrays, objects and primitive values outside keys. */
  values: number;
  /** Object members (their colons). */
  members: number;
}

/**
 * The depth, values and members of `text`, read from its characters before anything is parsed: one pass, no
 * allocation. Exact for JSON; for text that is not JSON JSON.parse refuses it anyway.
 */
export const measureJsonText = (text: string, maxDepth: number): JsonTextShape => {
  let depth = 0;
  let opened = 0;
  let strings = 0;
  let colons = 0;
  let literals = 0;
  /** The last character outside strings and whitespace: a literal starts right after one of `[ , :` or at the start. */
  let previous = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      strings++;
      // Skip the string: to the next quote that is not escaped.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      opened++;
      if (++depth > maxDepth) return { tooDeep: true, values: opened, members: colons };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    else if (c === COLON) colons++;
    else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    else if (previous === -1 || previous === OPEN_BRACKET || previous === COMMA || previous === COLON) literals++;
    previous = c;
  }
  return { tooDeep: false, values: opened + strings - colons + literals, members: colons };
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

/** What the grammar expects next: indexes into EXPECTED. */
const VALUE = 0;
const VALUE_OR_CLOSE = 1;
const KEY = 2;
const KEY_OR_CLOSE = 3;
const COLON_NEXT = 4;
const COMMA_OR_CLOSE = 5;
const END = 6;
const EXPECTED = [
  'a value',
  "a value or ']'",
  'a property name in double quotes',
  "a property name in double quotes or '}'",
  "':'",
  "',' or a closing bracket",
  'the end of the body',
];
const ARRAY = 0;
const OBJECT = 1;

/**
 * Where `text` stops being JSON (RFC 8259), or null when it is JSON. One pass with an explicit stack of open
 * containers, so any nesting depth is fine; plain loops over character codes.
 */
export const findJsonSyntaxError = (text: string): JsonSyntaxError | null => {
  const scanner = new Scanner(text);
  while (scanner.scan(Infinity) === null);
  return scanner.error();
};

/** Characters scanned per turn of the event loop by findJsonSyntaxErrorInSlices: a few milliseconds' work. */
const SLICE = 64 * 1024;

/** findJsonSyntaxError, yielding to the event loop every SLICE characters, so a megabyte never holds it. */
export const findJsonSyntaxErrorInSlices = async (text: string): Promise<JsonSyntaxError | null> => {
  const scanner = new Scanner(text);
  for (let until = SLICE; scanner.scan(until) === null; until += SLICE) await new Promise((resolve) => setImmediate(resolve));
  return scanner.error();
};

/** A resumable scan: its position, what it expects next and the open containers live between slices. */
class Scanner {
  failAt = -1;
  failExpected = '';
  private i = 0;
  private expect = VALUE;
  private readonly stack: number[] = [];

  constructor(private readonly text: string) {}

  error(): JsonSyntaxError | null {
    return this.failAt < 0 ? null : locate(this.text, this.failAt, this.failExpected);
  }

  /** Scans on until about index `until`: true when the text is JSON, false when it is not (see error()), null when not done. */
  scan(until: number): boolean | null {
    const { text, stack } = this;
    let { i, expect } = this;
    while (i < until) {
      i = this.whitespace(i);
      if (i >= text.length) return expect === END || this.refuse(i, `${EXPECTED[expect]} before the end of the body`);
      const c = text.charCodeAt(i);
      if (expect === VALUE || expect === VALUE_OR_CLOSE) {
        if (expect === VALUE_OR_CLOSE && c === CLOSE_BRACKET) {
          stack.pop();
          i++;
          expect = stack.length === 0 ? END : COMMA_OR_CLOSE;
        } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          stack.push(c === OPEN_BRACE ? OBJECT : ARRAY);
          i++;
          expect = c === OPEN_BRACE ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
        } else {
          i = this.primitive(i);
          if (i < 0) return false;
          expect = stack.length === 0 ? END : COMMA_OR_CLOSE;
        }
      } else if (expect === KEY || expect === KEY_OR_CLOSE) {
        if (expect === KEY_OR_CLOSE && c === CLOSE_BRACE) {
          stack.pop();
          i++;
          expect = stack.length === 0 ? END : COMMA_OR_CLOSE;
        } else if (c === QUOTE) {
          i = this.string(i);
          if (i < 0) return false;
          expect = COLON_NEXT;
        } else return this.refuse(i, EXPECTED[expect]);
      } else if (expect === COLON_NEXT) {
        if (c !== COLON) return this.refuse(i, EXPECTED[COLON_NEXT]);
        i++;
        expect = VALUE;
      } else if (expect === COMMA_OR_CLOSE) {
        const open = stack[stack.length - 1];
        if (c === COMMA) {
          i++;
          expect = open === OBJECT ? KEY : VALUE;
        } else if (c === (open === OBJECT ? CLOSE_BRACE : CLOSE_BRACKET)) {
          stack.pop();
          i++;
          expect = stack.length === 0 ? END : COMMA_OR_CLOSE;
        } else return this.refuse(i, open === OBJECT ? "',' or '}'" : "',' or ']'");
      } else return this.refuse(i, EXPECTED[END]);
    }
    this.i = i;
    this.expect = expect;
    return null;
  }

  /** Records a failure for scan(), which then answers false. */
  private refuse(at: number, expected: string): false {
    this.fail(at, expected);
    return false;
  }

  /** Records a failure; returns -1, what every scanning step returns on failure. */
  private fail(at: number, expected: string): number {
    this.failAt = at;
    this.failExpected = expected;
    return -1;
  }

  private whitespace(from: number): number {
    const { text } = this;
    let i = from;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
    return i;
  }

  /** A string, number or literal from `i`: the index just past it, or -1. */
  private primitive(i: number): number {
    const { text } = this;
    const c = text.charCodeAt(i);
    if (c === QUOTE) return this.string(i);
    if (c === 0x2d || isDigit(c)) return this.number(i);
    for (const literal of LITERALS) {
      if (c === literal.charCodeAt(0)) return text.startsWith(literal, i) ? i + literal.length : this.fail(i, literal);
    }
    return this.fail(i, EXPECTED[VALUE]);
  }

  /** From the opening quote at `i` to just past the closing one, or -1. */
  private string(i: number): number {
    const { text } = this;
    let j = i + 1;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) return j + 1;
      if (c < 0x20) return this.fail(j, 'a closing quote or an escaped control character');
      if (c === BACKSLASH) {
        const escape = text.charCodeAt(j + 1);
        if (escape === 0x75) {
          for (let k = j + 2; k < j + 6; k++) {
            if (!isHex(text.charCodeAt(k))) return this.fail(j, 'four hexadecimal digits after \\u');
          }
          j += 6;
        } else if (SIMPLE_ESCAPES.has(escape)) j += 2;
        else return this.fail(j, 'a valid escape sequence');
      } else j++;
    }
    return this.fail(text.length, 'a closing quote before the end of the body');
  }

  /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? from `i`: the index just past it, or -1. */
  private number(i: number): number {
    const { text } = this;
    let j = i;
    if (text.charCodeAt(j) === 0x2d) j++;
    if (text.charCodeAt(j) === 0x30) j++;
    else {
      const end = this.digits(j);
      if (end === j) return this.fail(j, 'a digit');
      j = end;
    }
    if (text.charCodeAt(j) === 0x2e) {
      const end = this.digits(j + 1);
      if (end === j + 1) return this.fail(j + 1, 'a digit after the decimal point');
      j = end;
    }
    const e = text.charCodeAt(j);
    if (e === 0x65 || e === 0x45) {
      j++;
      const sign = text.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      const end = this.digits(j);
      if (end === j) return this.fail(j, 'a digit in the exponent');
      j = end;
    }
    return j;
  }

  private digits(from: number): number {
    const { text } = this;
    let k = from;
    while (k < text.length && isDigit(text.charCodeAt(k))) k++;
    return k;
  }
}

const LITERALS = ['true', 'false', 'null'];
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** `"`, `\\`, `/`, b, f, n, r, t: the characters a backslash may escape besides u. */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

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
