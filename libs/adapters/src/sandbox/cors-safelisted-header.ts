// The Fetch standard's "CORS-safelisted request-header": the only headers a reactor's fetch carries to another origin.

const MAX_VALUE_BYTES = 128;
/** The standard's "CORS-unsafe request-header byte": controls but HT, `"():<>?@[\]{}` and DEL. */
const UNSAFE_BYTE = /[\x00-\x08\x0a-\x1f"():<>?@[\\\]{}\x7f]/;
/** Letters, digits, space and `*,-.;=`: the only bytes of a safelisted `accept-language` or `content-language`. */
const LANGUAGE_VALUE = /^[0-9A-Za-z *,\-.;=]*$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const TRAILING_HTTP_WHITESPACE = /[\t\n\r ]+$/;
const SAFELISTED_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/**
 * True for `accept`, `accept-language`, `content-language` and `content-type` with the values the standard lets a page
 * send anywhere without asking: nothing a server could take for a credential. `name` is lower case.
 */
export const isCorsSafelistedRequestHeader = (name: string, value: string): boolean => {
  if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) return false;
  switch (name) {
    case 'accept':
      return !UNSAFE_BYTE.test(value);
    case 'accept-language':
    case 'content-language':
      return LANGUAGE_VALUE.test(value);
    case 'content-type': {
      if (UNSAFE_BYTE.test(value)) return false;
      const essence = mimeEssence(value);
      return essence !== null && SAFELISTED_CONTENT_TYPES.has(essence);
    }
    default:
      return false;
  }
};

/**
 * `type/subtype` in lower case as the standard's "parse a MIME type" reads it, or null where that fails. Parameters
 * never make it fail, so they are not read.
 */
const mimeEssence = (value: string): string | null => {
  const text = value.replace(HTTP_WHITESPACE, '');
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const type = text.slice(0, slash);
  const semicolon = text.indexOf(';', slash);
  const subtype = text.slice(slash + 1, semicolon < 0 ? undefined : semicolon).replace(TRAILING_HTTP_WHITESPACE, '');
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  return `${type}/${subtype}`.toLowerCase();
};
