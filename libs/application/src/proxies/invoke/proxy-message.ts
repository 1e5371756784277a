// A proxied request or answer on its way through the vault: header lines and a body of any type, with what the
// transforms and detokenization need to read of it.
import { MAX_BODY_DEPTH } from '@vault/domain';
import type { HeaderLines } from '../../ports/proxy-egress';

export interface ProxyMessage {
  headers: HeaderLines;
  /** null: no body. */
  body: Buffer | null;
}

/** How a body is read: JSON and text are detokenized and transformed; any other type passes untouched. */
export type BodyKind = 'json' | 'text' | 'other';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/;
const TEXT_MEDIA_TYPE = /^(?:text\/[\w.+-]+|application\/x-www-form-urlencoded|application\/(?:[\w.-]+\+)?xml)$/;

export const headerValue = (headers: HeaderLines, name: string): string | undefined => headers.find(([line]) => line === name)?.[1];

export const bodyKindOf = (headers: HeaderLines): BodyKind => {
  const mediaType = (headerValue(headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (JSON_MEDIA_TYPE.test(mediaType)) return 'json';
  if (TEXT_MEDIA_TYPE.test(mediaType)) return 'text';
  return 'other';
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text, or null when it is not valid UTF-8 (it is then treated as bytes of another type). */
export const textOf = (body: Buffer): string | null => {
  try {
    return utf8.decode(body);
  } catch {
    return null;
  }
};

/** What a JSON or text body reads as: parsed JSON (a JSON body that does not parse is text), text, or null. */
export const readableBody = (message: ProxyMessage): { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | null => {
  const kind = bodyKindOf(message.headers);
  if (message.body === null || kind === 'other') return null;
  const text = textOf(message.body);
  if (text === null) return null;
  if (kind === 'json') {
    try {
      const value: unknown = JSON.parse(text);
      // Deeper than any walk of the vault goes (recursive ones included): read as the text it is.
      return nestsDeeperThan(value, MAX_BODY_DEPTH) ? { kind: 'text', value: text } : { kind: 'json', value };
    } catch {
      return { kind: 'text', value: text };
    }
  }
  return { kind: 'text', value: text };
};

/** Whether arrays and objects nest deeper than `limit` (the value itself at depth 1), walked without recursion. */
const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const inner of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof inner === 'object' && inner !== null) stack.push([inner, depth + 1]);
    }
  }
  return false;
};

/** The body of a value read by readableBody, written back: JSON as JSON text, text as UTF-8. */
export const bodyOf = (read: { kind: 'json' | 'text'; value: unknown }): Buffer =>
  Buffer.from(read.kind === 'json' ? JSON.stringify(read.value) : String(read.value), 'utf8');

/**
 * Header lines as an object for code: name → value, a repeated header's values joined with `, ` (as the Fetch
 * standard combines them). Built on a null prototype, so a header named `__proto__` is a header.
 */
export const headerObject = (headers: HeaderLines): Record<string, string> => {
  const object: Record<string, string> = Object.create(null);
  for (const [name, value] of headers) object[name] = Object.hasOwn(object, name) ? `${object[name]}, ${value}` : value;
  return object;
};
