// A proxy's transforms, applied in order to a request before it is detokenized, or to the destination's answer before
// it flows back: `code` in the reactor sandbox, `tokenize` through the tokenize use case as the proxy's application,
// `mask` as `reveal_last: 4`. A transform that cannot read the body (a type that is not JSON) leaves it alone.
import {
  DomainError,
  parseJsonPath,
  reactorSecrets,
  redactReactorMessageSteps,
  replaceAtJsonPath,
  selectJsonPath,
  unavailable,
  validationError,
  type CodeTransform,
  type ExpressionEngine,
  type FieldErrors,
  type MaskTransform,
  type ProxyConfiguration,
  type ProxyTransform,
  type TokenizeTransform,
} from '@vault/domain';
import type { ReactorRuntime } from '../../ports/reactor-runtime';
import { inTurns } from '../../shared/turns';
import type { Caller } from '../../shared/use-case';
import type { TokenizeRequests } from '../../tokenize/tokenize-requests';
import { bodyOf, headerObject, readableBody, textOf, type ProxyMessage } from './proxy-message';

export type Direction = 'request' | 'response';

export interface TransformContext {
  direction: Direction;
  tenantId: string;
  configuration: ProxyConfiguration;
  method: string;
  path: string;
  query: string;
  /** The proxy's application as a caller: who tokenize transforms create tokens as. */
  tokenizingAs: () => Promise<Caller>;
  /** What a failed transform's message goes through before it reaches the caller (what flows back). */
  guardMessage: (message: string) => Promise<string>;
}

const MASK_EXPRESSION = '{{ data | reveal_last: 4 }}';

export class ProxyTransformer {
  constructor(
    private readonly runtime: ReactorRuntime,
    private readonly tokenizer: TokenizeRequests,
    private readonly engine: ExpressionEngine,
  ) {}

  async apply(transforms: readonly ProxyTransform[], message: ProxyMessage, context: TransformContext): Promise<ProxyMessage> {
    let current = message;
    for (const [i, transform] of transforms.entries()) {
      const at = `${context.direction}_transforms[${i}]`;
      if (transform.type === 'code') current = await this.code(transform, current, context, at);
      else if (transform.type === 'tokenize') current = await this.tokenize(transform, current, context, at);
      else current = this.mask(transform, current);
    }
    return current;
  }

  private async code(transform: CodeTransform, message: ProxyMessage, context: TransformContext, at: string): Promise<ProxyMessage> {
    const read = readableBody(message);
    const body = read !== null ? read.value : message.body === null ? null : (textOf(message.body) ?? message.body.toString('latin1'));
    const args = { body, headers: headerObject(message.headers), method: context.method, path: context.path, query: context.query };
    const result = await this.runtime.run(wrapTransform(transform.code), { args, configuration: context.configuration }, { tenantId: context.tenantId });
    if (!result.ok) {
      if (result.kind === 'busy') throw unavailable(result.message, result.retryAfterSeconds);
      // The message may quote what the code was given: the configuration (secrets) is taken out, and what the
      // destination echoed goes through what flows back.
      const redacted = await inTurns(redactReactorMessageSteps(result.message, reactorSecrets(context.configuration)));
      throw transformFailed(at, await context.guardMessage(redacted));
    }
    const raw = result.raw as { body?: unknown; headers?: unknown } | null;
    if (raw === null || typeof raw !== 'object') return message;
    const headers = raw.headers === undefined || raw.headers === null ? message.headers : headerLinesOf(raw.headers, at);
    if (!Object.hasOwn(raw, 'body')) return { headers, body: message.body };
    // Unchanged, the body keeps its bytes (and its formatting).
    if (JSON.stringify(raw.body) === JSON.stringify(body)) return { headers, body: message.body };
    if (raw.body === null) return { headers, body: null };
    if (typeof raw.body === 'string') return { headers, body: Buffer.from(raw.body, 'utf8') };
    return { headers, body: bodyOf({ kind: 'json', value: raw.body }) };
  }

  private async tokenize(transform: TokenizeTransform, message: ProxyMessage, context: TransformContext, at: string): Promise<ProxyMessage> {
    const read = readableBody(message);
    if (read === null || read.kind !== 'json') return message;
    const found = transform.fields
      .map((field, j) => ({ field, j, steps: parseJsonPath(field.json_path) }))
      .map((place) => ({ ...place, value: selectJsonPath(read.value, place.steps) }))
      .filter((place) => place.value !== null);
    if (found.length === 0) return message;
    const requests = found.map(({ field, value }) => ({
      type: field.token.type,
      data: value,
      ...(field.token.containers ? { containers: field.token.containers } : {}),
      ...(field.token.metadata ? { metadata: field.token.metadata } : {}),
      ...(field.token.deduplicate_token === undefined ? {} : { deduplicate_token: field.token.deduplicate_token }),
    }));
    // Outside the try: an application that is gone is the proxy's problem (on `application`), not the fields'.
    const as = await context.tokenizingAs();
    let tokens: unknown;
    try {
      tokens = await this.tokenizer.tokenize(as, requests);
    } catch (error) {
      throw tokenizeFailed(error, at, found.map(({ j }) => j), context.direction);
    }
    const ids = (tokens as Array<{ id: string }>).map((token) => token.id);
    found.forEach(({ steps }, k) => replaceAtJsonPath(read.value, steps, () => ids[k]));
    return { headers: message.headers, body: bodyOf(read) };
  }

  private mask(transform: MaskTransform, message: ProxyMessage): ProxyMessage {
    const read = readableBody(message);
    if (read === null || read.kind !== 'json') return message;
    let changed = false;
    for (const path of transform.fields) {
      changed =
        replaceAtJsonPath(read.value, parseJsonPath(path), (value) => (typeof value === 'string' ? this.engine.evaluate(MASK_EXPRESSION, value) : value)) ||
        changed;
    }
    return changed ? { headers: message.headers, body: bodyOf(read) } : message;
  }
}

/**
 * The transform's code as a module the sandbox runs: its exported function's `{ body, headers }` handed back as `raw`
 * (a body left out keeps the message's). Code that breaks out of the wrapper still runs in the sandbox only.
 */
const wrapTransform = (code: string): string => `${code}
;module.exports = (function (transform) {
  if (typeof transform !== 'function') return transform;
  return async function (req) {
    const answer = await transform(req);
    if (answer === undefined || answer === null) return { raw: {} };
    if (typeof answer !== 'object') throw new TypeError('A proxy transform must return an object { body, headers }.');
    return { raw: { body: answer.body, headers: answer.headers === undefined ? null : answer.headers } };
  };
})(module.exports);
`;

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What Node sends as a header value: tabs and visible characters of Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const headerLinesOf = (headers: unknown, at: string): Array<[string, string]> => {
  if (typeof headers !== 'object' || Array.isArray(headers)) throw transformFailed(at, 'headers must be an object of header names to strings.');
  const lines: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (!HEADER_NAME.test(name)) throw transformFailed(at, 'A header name the transform returned is not a valid HTTP header name.');
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item !== 'string' && typeof item !== 'number') throw transformFailed(at, `The value of header ${name.slice(0, 100)} must be a string.`);
      if (!HEADER_VALUE.test(String(item))) {
        throw transformFailed(at, `The value of header ${name.slice(0, 100)} holds a line break, a control character or a character beyond Latin-1.`);
      }
      lines.push([name.toLowerCase(), String(item)]);
    }
  }
  return lines;
};

export const TRANSFORM_FAILED = 'A transform of the proxy failed; errors names it.';

const transformFailed = (at: string, message: string): DomainError => new DomainError('unprocessable', TRANSFORM_FAILED, { [at]: [message] });

/**
 * A tokenize transform's failure, on the transform's fields. The request's own data that is not a valid token is the
 * sender's mistake (400); a destination's answer that is not is the transform's (422). The tokenizer's paths name
 * positions in its own body, mapped back to the fields they came from; its messages never quote data.
 */
const tokenizeFailed = (error: unknown, at: string, fieldIndexes: number[], direction: Direction): unknown => {
  if (!(error instanceof DomainError)) return error;
  if (error.kind === 'unavailable') return error;
  const errors: FieldErrors = {};
  for (const [path, messages] of Object.entries(error.errors ?? {})) {
    const k = /^\[(\d+)\]/.exec(path);
    const field = k ? `${at}.fields[${fieldIndexes[Number(k[1])]}]` : at;
    errors[field] = [...(errors[field] ?? []), ...messages];
  }
  if (Object.keys(errors).length === 0) errors[at] = [error.message];
  if (direction === 'request' && error.kind === 'validation') return validationError(errors, 'A field the proxy tokenizes is not a valid token.');
  return new DomainError('unprocessable', TRANSFORM_FAILED, errors);
};

