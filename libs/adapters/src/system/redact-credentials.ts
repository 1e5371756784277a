// Store URLs and connection strings (VAULT_EVENT_STORE, VAULT_SEARCH) may carry credentials: `esdb://user:pw@host`,
// `http://user:pw@host`, `?password=…`. Every text that can quote one (a log line, a start-up error, a client's error
// message) passes through here before it is written anywhere.

/** `scheme://userinfo@`: everything between `//` and the last `@` before the host's end. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*(?:@[^\s/?#@]*)*@/gi;
/** A query parameter whose name says it holds a secret (`password`, `apiKey`, `access_token`, `secret`, `auth` …). */
const SECRET_PARAMETER = /([?&][^=&\s#]*(?:pass|pwd|secret|token|key|auth|cred|sig)[^=&\s#]*=)[^&\s#]*/gi;

export const REDACTED = '[redacted]';

/** `text` with the userinfo of every URL in it, and the values of secret-named query parameters, replaced. */
export const redactCredentials = (text: string): string =>
  text.replace(USERINFO, `$1${REDACTED}@`).replace(SECRET_PARAMETER, `$1${REDACTED}`);

/**
 * An error to rethrow in place of a client's: same class name, message redacted, no cause and no stack frames that
 * could quote the original (Nest and our main() log `name: message`).
 */
export const sanitizedError = (error: unknown, context?: string): Error => {
  const original = error instanceof Error ? error : new Error(String(error));
  const sanitized = new Error(redactCredentials(context ? `${context}: ${original.message}` : original.message));
  sanitized.name = original.name;
  sanitized.stack = `${sanitized.name}: ${sanitized.message}`;
  return sanitized;
};
