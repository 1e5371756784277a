// ANY /proxy: a request sent on to its destination (a proxy's, or an ephemeral SVC-PROXY-URL) with its request
// transforms applied, then token data put in for the caller's detokenization expressions (token:use), and the answer
// sent back after the response transforms and what flows back. Bodies, headers and answers are never logged.
import { DomainError, FlowBackGuard, FlowBackUncheckableError, MAX_BODY_VALUES, REDACTED_VIEW, validationError, type ExpressionEngine, type FlowBackSource, type ProxySecrets } from '@vault/domain';
import { recordAccess, type Access } from '../../audit/record-access';
import { principalOf } from '../../authentication/authenticator';
import type { Detokenizer } from '../../detokenize/detokenizer';
import type { AccessLog } from '../../ports/access-log';
import { currentRequestContext } from '../../ports/request-context';
import type { EgressAnswer, HeaderLines, ProxyEgress } from '../../ports/proxy-egress';
import type { ReactorRuntime } from '../../ports/reactor-runtime';
import type { ApplicationReadModel } from '../../ports/read-models';
import type { Clock } from '../../ports/system';
import { inTurns } from '../../shared/turns';
import { VaultCommand, type Caller, type UseCaseHandler } from '../../shared/use-case';
import type { TokenizeRequests } from '../../tokenize/tokenize-requests';
import { bodyKindOf, bodyOf, readableBody, textOf, type ProxyMessage } from './proxy-message';
import type { ProxyTargets, ProxyTarget } from './proxy-target';
import { ProxyTransformer, type Direction } from './proxy-transformer';

export interface ProxyInvocation {
  /** GET, POST, PUT, PATCH or DELETE. */
  method: string;
  /** What follows `/proxy` in the request's path, as received ('' for none). */
  path: string;
  /** The query as received, without `?` and without the svc-proxy-key parameter ('' for none). */
  query: string;
  /** The request's headers, less the vault's own, hop-by-hop ones, `host` and `content-length`. */
  headers: HeaderLines;
  body: Buffer | null;
  proxyKey: string | null;
  proxyUrl: string | null;
}

export interface ProxyAnswer {
  status: number;
  headers: HeaderLines;
  body: Buffer;
  /** How long the destination took to answer, in ms. */
  destinationMs: number;
}

export class InvokeProxyCommand extends VaultCommand<ProxyAnswer> {
  constructor(
    /** null: no SVC-API-KEY (only a proxy with require_auth false may be invoked so). */
    readonly caller: Caller | null,
    readonly invocation: ProxyInvocation,
  ) {
    super();
  }
}

export const UNCHECKABLE_PROXY_ANSWER =
  "The destination's answer could not be checked for token data within the bounds of one request; it is withheld.";

const ANONYMOUS = { type: 'anonymous', id: 'anonymous' } as const;

export class InvokeProxyHandler implements UseCaseHandler<InvokeProxyCommand> {
  private readonly transformer: ProxyTransformer;

  constructor(
    private readonly targets: ProxyTargets,
    private readonly applications: ApplicationReadModel,
    private readonly detokenizer: Detokenizer,
    tokenizer: TokenizeRequests,
    runtime: ReactorRuntime,
    engine: ExpressionEngine,
    private readonly egress: ProxyEgress,
    private readonly access: AccessLog,
    private readonly clock: Clock,
  ) {
    this.transformer = new ProxyTransformer(runtime, tokenizer, engine);
  }

  async execute({ caller, invocation }: InvokeProxyCommand): Promise<ProxyAnswer> {
    const target = await this.targets.resolve(caller, invocation);
    const invoked = { recorded: false };
    try {
      return await this.invoke(caller, invocation, target, invoked);
    } catch (error) {
      // Every invocation of a proxy the caller may use is an entry, also one refused or failed before it was sent.
      if (!invoked.recorded) await this.record(caller, target, [invokeAccess(target)]);
      throw error;
    }
  }

  private async invoke(caller: Caller | null, invocation: ProxyInvocation, target: ProxyTarget, invoked: { recorded: boolean }): Promise<ProxyAnswer> {
    const secrets = target.secrets;
    // The configuration is the proxy's secret (shown to proxy:read holders only, which no invoking key can hold): a
    // destination echoing what a transform built from it (an Authorization header) gets it withheld as token data is.
    const hidden = configurationSources(secrets);
    const guard = { current: FlowBackGuard.of(hidden) };
    const transforming = (direction: Direction) => ({
      direction,
      tenantId: target.tenantId,
      configuration: secrets?.configuration ?? {},
      method: invocation.method,
      path: invocation.path,
      query: invocation.query,
      tokenizingAs: () => this.tokenizingAs(target),
      guardMessage: (message: string) => this.guarded(() => inTurns(guard.current.text(message))),
    });

    // Before detokenization: no code of the proxy ever sees token data the caller put in by expression.
    let message: ProxyMessage = { headers: invocation.headers, body: invocation.body };
    if (secrets !== null) message = await this.transformer.apply(secrets.request_transforms, message, transforming('request'));

    const used: string[] = [];
    if (caller !== null) {
      const detokenized = await this.detokenize(caller, message);
      message = detokenized.message;
      used.push(...detokenized.used);
      guard.current = FlowBackGuard.of([...detokenized.flowBack, ...hidden]);
    }

    // Durable before anything is sent: a crash or a hung destination still leaves who used which token.
    await this.record(caller, target, [
      ...used.map((tokenId): Access => ({ entity_type: 'token', entity_id: tokenId, operation: 'use', via: 'proxy', ...proxyIdOf(target) })),
      invokeAccess(target),
    ]);
    invoked.recorded = true;

    const started = this.clock.now().getTime();
    const answer = await this.egress.send({ url: target.url, method: invocation.method, headers: message.headers, body: message.body });
    const destinationMs = this.clock.now().getTime() - started;
    if (answer.failed !== null) throw egressFailure(answer);

    // What flows back, before the response transforms too: no transform of the proxy (code reading it, a tokenize
    // making a new token of it) ever handles a value the caller may not see that the destination echoed.
    let response = await this.withheld(guard.current, { headers: answer.headers, body: answer.body });
    if (secrets !== null && (secrets.response_transforms.length > 0)) {
      response = await this.transformer.apply(secrets.response_transforms, response, transforming('response'));
      // And after them: code may have put configuration values in.
      response = await this.withheld(guard.current, response);
    }
    const body = response.body ?? Buffer.alloc(0);
    const headers = response.headers;
    const withheld = guard.current.replacedTokenIds();
    if (withheld.length > 0) {
      await this.record(
        caller,
        target,
        withheld.map((tokenId): Access => ({ entity_type: 'token', entity_id: tokenId, operation: 'use', via: 'proxy', withheld: true, ...proxyIdOf(target) })),
      );
    }
    return { status: answer.status, headers, body: Buffer.from(body), destinationMs };
  }

  /**
   * The caller's detokenization expressions in the body (JSON or text) and header values, each needing its token:use
   * rule. An expression spliced into a longer string puts the whole value there; a filter shapes the data, and needs
   * a token:read rule that reveals the token. Nothing is read when nothing holds `{{`.
   */
  private async detokenize(caller: Caller, message: ProxyMessage): Promise<{ message: ProxyMessage; used: string[]; flowBack: FlowBackSource[] }> {
    // Looked for in the text first: a body without `{{` is neither parsed nor walked, however large.
    const text = message.body === null || bodyKindOf(message.headers) === 'other' ? null : textOf(message.body);
    // A JSON body with more values than a detokenized body may hold is refused before it is parsed (parsing 1 MiB of
    // tiny values would hold the event loop for longer than any request may).
    if (text !== null && text.includes('{{') && bodyKindOf(message.headers) === 'json' && jsonValuesAtLeast(text, MAX_BODY_VALUES + 1)) {
      throw validationError({ body: [`The body must hold at most ${MAX_BODY_VALUES} values (containers, nulls and leaves).`] });
    }
    const read = text !== null && text.includes('{{') ? readableBody(message) : null;
    const bodyHas = read !== null;
    const headerLines = message.headers.map((_line, i) => i).filter((i) => message.headers[i][1].includes('{{'));
    if (!bodyHas && headerLines.length === 0) return { message, used: [], flowBack: [] };

    const headers: Record<string, string | string[]> = {};
    for (const i of headerLines) {
      const [name, value] = message.headers[i];
      const existing = headers[name];
      headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    const input: Record<string, unknown> = {};
    if (bodyHas) input.body = read!.value;
    if (headerLines.length > 0) input.headers = headers;
    const { body: output, views, flowBack } = await this.detokenizer.detokenize(caller, input, 'token:use', 'whole');
    const out = output as { body?: unknown; headers?: Record<string, string | string[]> };

    const lines: HeaderLines = message.headers.map(([name, value]) => [name, value]);
    const taken = new Map<string, number>();
    for (const i of headerLines) {
      const name = lines[i][0];
      const detokenized = out.headers![name];
      const k = taken.get(name) ?? 0;
      taken.set(name, k + 1);
      // A repeated header went in as a list of its values; a single one as its value, which a token may make a list.
      const repeated = headerLines.filter((j) => message.headers[j][0] === name).length > 1;
      const value = repeated && Array.isArray(detokenized) ? detokenized[k] : detokenized;
      lines[i] = [name, typeof value === 'string' ? value : JSON.stringify(value)];
    }
    // Node refuses to send a header with a line break, a control character or one beyond Latin-1: said here, by name.
    const invalid = [...new Set(headerLines.map((i) => lines[i]).filter(([, value]) => !HEADER_VALUE.test(value)).map(([name]) => `headers.${name}`))];
    if (invalid.length > 0) {
      throw validationError(Object.fromEntries(invalid.map((place) => [place, [INVALID_HEADER_VALUE]])), 'A detokenized header value cannot be sent.');
    }
    const body = bodyHas ? bodyOf({ kind: read!.kind, value: read!.kind === 'text' ? stringOf(out.body) : out.body }) : message.body;
    return { message: { headers: lines, body }, used: [...views.keys()], flowBack };
  }

  /** The proxy's application as a caller (its rules as at authentication): who a tokenize transform creates tokens as. */
  private async tokenizingAs(target: ProxyTarget): Promise<Caller> {
    const applicationId = target.proxy?.application_id ?? null;
    const app = applicationId === null ? null : await this.applications.get(target.tenantId, applicationId);
    const now = this.clock.now();
    if (!app || (app.expires_at !== null && Date.parse(app.expires_at) <= now.getTime())) {
      throw new DomainError('unprocessable', "The proxy's application no longer exists or has expired.", {
        application: ["The proxy's application no longer exists or has expired; update the proxy's application."],
      });
    }
    return { principal: principalOf(app), now, requestId: currentRequestContext()?.requestId ?? 'proxy' };
  }

  private async record(caller: Caller | null, target: ProxyTarget, accesses: Access[]): Promise<void> {
    if (caller !== null) return recordAccess(this.access, caller, accesses);
    const created_at = this.clock.now().toISOString();
    return this.access.record(
      accesses.map((access) => ({ tenant_id: target.tenantId, ...access, created_at })),
      ANONYMOUS,
    );
  }

  /** The answer with every value the caller may not see replaced, its body of any type and its headers. */
  private async withheld(guard: FlowBackGuard, response: ProxyMessage): Promise<ProxyMessage> {
    if (guard.isEmpty) return response;
    const body = await this.guarded(() => guardedBody(guard, response));
    const headers = sendable(await this.guarded(() => inTurns(guard.headers(response.headers))));
    return { headers, body: Buffer.from(body) };
  }

  /** An answer too costly to check is withheld whole (502), never sent unchecked. */
  private async guarded<T>(check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (error) {
      if (error instanceof FlowBackUncheckableError) throw new DomainError('bad_gateway', UNCHECKABLE_PROXY_ANSWER);
      throw error;
    }
  }
}

/** What Node sends as a header value: tabs and visible characters of Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export const INVALID_HEADER_VALUE = 'Once detokenized, this header value holds a line break, a control character or a character beyond Latin-1, which HTTP headers cannot carry.';

/**
 * What flows back puts the caller's view where a value was, and a mask keeps the token's other characters (an en dash,
 * a line break): in an answer's header value, such a character is written as its percent-encoded UTF-8 bytes, so the
 * answer can still be sent.
 */
const sendable = (headers: HeaderLines): HeaderLines =>
  headers.map(([name, value]) => [name, HEADER_VALUE.test(value) ? value : value.replace(NOT_IN_HEADER_VALUE, percentEncoded)]);

const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/gu;

const percentEncoded = (character: string): string =>
  Array.from(new TextEncoder().encode(character), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/**
 * The answer's body through what flows back. A JSON body is checked value by value and written anew when something was
 * replaced: a caller's view spliced into its text could hold a quote and break it. Any other body, as bytes.
 */
/**
 * A JSON body is checked value by value, so a replacement that holds a quote keeps it JSON; and its bytes as text too,
 * since they may hold what the parsed value does not (a number past 2^53, a duplicated key): bytes that still hold a
 * value after that go out checked as text, JSON or not.
 */
const guardedBody = async (guard: FlowBackGuard, response: ProxyMessage): Promise<Uint8Array> => {
  const body = response.body ?? Buffer.alloc(0);
  // Most answers hold nothing: checked as text first, they go out as they came without being parsed.
  const asText = await inTurns(guard.bytes(body));
  if (asText === body) return body;
  const read = readableBody(response);
  if (read === null || read.kind !== 'json') return asText;
  const parsed = await inTurns(guard.json(read.value));
  const candidate = JSON.stringify(parsed) === JSON.stringify(read.value) ? body : bodyOf({ kind: 'json', value: parsed });
  return inTurns(guard.bytes(candidate));
};

/**
 * Whether JSON text holds at least `limit` values, counted without parsing: one per value start after `[`, `{`, `,`
 * and `:` outside strings, plus the first. A lower bound of the parsed count, so never refuses a body that would pass.
 */
const jsonValuesAtLeast = (text: string, limit: number): boolean => {
  let count = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c) count++; // , another member or item
    else if ((c === 0x5b || c === 0x7b) && nextSignificant(text, i + 1) !== (c === 0x5b ? 0x5d : 0x7d)) count++; // a non-empty [ or {
    if (count >= limit) return true;
  }
  return false;
};

const nextSignificant = (text: string, from: number): number => {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
};

const invokeAccess = (target: ProxyTarget): Access => ({ entity_type: 'proxy', entity_id: target.proxy?.id ?? null, operation: 'invoke', via: 'proxy' });

/** Each configuration value, as what flows back looks for it: withheld whole, no token and no audit record of its own. */
const configurationSources = (secrets: ProxySecrets | null): FlowBackSource[] =>
  Object.values(secrets?.configuration ?? {}).map((value) => ({ tokenId: null, value, replacement: REDACTED_VIEW }));

const proxyIdOf = (target: ProxyTarget): { proxy_id?: string } => (target.proxy === null ? {} : { proxy_id: target.proxy.id });

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const egressFailure = (answer: Exclude<EgressAnswer, { failed: null }>): DomainError => {
  switch (answer.failed) {
    case 'timeout':
      return new DomainError('gateway_timeout', 'The destination did not answer within VAULT_PROXY_TIMEOUT_MS.');
    case 'too_large':
      return new DomainError('bad_gateway', "The destination's answer is larger than 1 MiB.");
    case 'unreachable':
      return new DomainError('bad_gateway', 'The destination could not be reached, or its answer was not valid HTTP.');
  }
};

