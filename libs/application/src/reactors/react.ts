// POST /reactors/{id}/react: the reactor and its formula's current code, the args detokenized for token:use and
// checked against the formula's request parameters, the configuration opened, the code run in the sandbox, and its
// `tokenize` tokenized as POST /tokenize would, as the reactor's application (else the caller).
//
// The reactor and its formula are read from their streams, not the read models (ReactorReferences says why): a reactor
// or formula change that has answered is always seen, even one that answered with X-Projection-Pending. Nothing read
// here is logged: args, configuration, raw and the code's errors travel in the answer only.
import {
  checkReactorArgs,
  DomainError,
  exceedsJsonSize,
  fieldErrorsOf,
  FlowBackGuard,
  FlowBackUncheckableError,
  MAX_JSON_VALUES,
  notFound,
  reactorSecretKeys,
  reactorSecrets,
  redactReactorMessageSteps,
  unavailable,
  validationError,
  visibleReactor,
} from '@vault/domain';
import { recordAccess, type Access } from '../audit/record-access';
import { principalOf } from '../authentication/authenticator';
import { detokenizeForUse } from '../detokenize/detokenize-for-use';
import type { Detokenizer } from '../detokenize/detokenizer';
import type { AccessLog } from '../ports/access-log';
import type { EventStore } from '../ports/event-store';
import type { ReactorRuntime } from '../ports/reactor-runtime';
import type { ApplicationReadModel } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import { inTurns } from '../shared/turns';
import { VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import type { TokenizeRequests } from '../tokenize/tokenize-requests';
import { ReactorReferences } from './reactor-references';
import { openConfiguration } from './sealing/reactor-configuration';
import { tokenizeReaction } from './tokenize-reaction';

/**
 * The answer: the created (or deduplicated) tokens in the shape of the code's `tokenize`, and its `raw` as is. When the
 * args used a token the caller's token:read rule does not reveal, `tokens` is an array of id-only views in document
 * order instead (OnBehalfOf): the keys of `tokenize` may come from the data.
 */
export interface Reaction {
  tokens: unknown;
  raw: unknown;
}

export class ReactCommand extends VaultCommand<Reaction> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    /** `{ args }`: any JSON, detokenization expressions anywhere in it. */
    readonly body: unknown,
  ) {
    super();
  }
}

export class ReactHandler implements UseCaseHandler<ReactCommand> {
  private readonly references: ReactorReferences;

  constructor(
    events: EventStore,
    private readonly applications: ApplicationReadModel,
    private readonly crypto: TokenCrypto,
    private readonly detokenizer: Detokenizer,
    private readonly tokenizer: TokenizeRequests,
    private readonly runtime: ReactorRuntime,
    private readonly access: AccessLog,
  ) {
    this.references = new ReactorReferences(events);
  }

  async execute({ caller, id, body }: ReactCommand): Promise<Reaction> {
    const args = argsOf(body);
    const tenantId = caller.principal.tenantId;
    const reactor = visibleReactor(await this.references.reactor(tenantId, id), tenantId);
    if (!reactor) throw notFound('Reactor');
    // A formula with reactors cannot be deleted, so only a delete racing this reactor's creation leaves none.
    const formula = await this.references.formula(reactor.formula_id);
    if (!formula || (formula.tenant_id !== null && formula.tenant_id !== tenantId)) {
      throw new DomainError('conflict', "The reactor's formula has been deleted; delete the reactor or create it again from another formula.");
    }
    // Who tokenizes the result is settled before anything runs: the code must not call upstream for nothing.
    const tokenizingAs = await this.tokenizingCaller(caller, reactor.application_id);

    // `least` caps what the result's tokens may show the caller (what a write may reveal): the code saw data the
    // caller's own rules may not show it.
    const { body: used, used: tokenIds, least, flowBack } = await detokenizeForUse(this.detokenizer, caller, { args });
    const detokenized = used as { args: unknown };
    // Tokens may hold up to 64 KiB each: 100 of them can expand args to a million values, whose hand-over to the code
    // and whose redaction from an error message would each hold the event loop for seconds. Bounded here, before any.
    if (exceedsJsonSize(detokenized.args, MAX_DETOKENIZED_ARGS_VALUES, Number.POSITIVE_INFINITY)) {
      throw validationError({ args: [`args must hold at most ${MAX_DETOKENIZED_ARGS_VALUES} values once detokenized.`] });
    }
    checkReactorArgs(detokenized.args, formula.request_parameters);
    const configuration = await openConfiguration(this.crypto, reactor);
    // What flows back: the code (or an endpoint echoing what it was sent) may hand back data the caller may not see.
    const guard = FlowBackGuard.of(flowBack);

    // Durable before the code runs: a run that crashes the process, or hangs, still leaves who used which token.
    await recordAccess(this.access, caller, [
      ...tokenIds.map((tokenId): Access => ({ entity_type: 'token', entity_id: tokenId, operation: 'use', via: 'react', reactor_id: reactor.id })),
      { entity_type: 'reactor', entity_id: reactor.id, operation: 'invoke', via: 'react' },
    ]);

    const result = await this.runtime.run(formula.code, { args: detokenized.args, configuration }, { tenantId: caller.principal.tenantId });
    if (!result.ok) {
      if (result.kind === 'busy') throw unavailable(result.message, result.retryAfterSeconds);
      // The message may quote what the code was given (a thrown `args.x`, V8's own "Cannot convert …"): the caller may
      // use the tokens' data without seeing it (an object token's keys are data too), and may not read the configuration.
      // In steps, with a turn of the event loop between them: the secrets may be megabytes (100 tokens of 64 KiB). Past
      // MAX_REDACTED_VALUES values, even collecting them would be long: the message is withheld instead.
      let message = WITHHELD_MESSAGE;
      if (!exceedsJsonSize([detokenized.args, configuration], MAX_REDACTED_VALUES, Number.POSITIVE_INFINITY)) {
        message = await inTurns(
          redactReactorMessageSteps(result.message, reactorSecrets(detokenized.args, configuration), reactorSecretKeys(detokenized.args, configuration)),
        );
      }
      message = await this.flowBack(caller, reactor.id, guard, async () => inTurns(guard.text(message)));
      throw new DomainError('unprocessable', 'The reactor failed; errors.reactor says why.', { reactor: [message] });
    }
    const onBehalfOf = { invoker: caller, rules: caller.principal.accessRules, cap: least };
    const tokens = result.tokenize === null ? null : await tokenizeReaction(this.tokenizer, tokenizingAs, result.tokenize, onBehalfOf);
    return this.flowBack(caller, reactor.id, guard, async () => ({
      tokens: await inTurns(guardCodeWrittenFields(guard, tokens)),
      raw: await inTurns(guard.json(result.raw)),
    }));
  }

  /**
   * Runs `answer` (the guarded answer) and records a withheld `use` for every token whose data it replaced, before the
   * answer leaves. An answer too costly to check is withheld whole (422), never sent unchecked.
   */
  private async flowBack<T>(caller: Caller, reactorId: string, guard: FlowBackGuard, answer: () => Promise<T>): Promise<T> {
    let guarded: T;
    try {
      guarded = await answer();
    } catch (error) {
      if (!(error instanceof FlowBackUncheckableError)) throw error;
      throw new DomainError('unprocessable', UNCHECKABLE_MESSAGE, { reactor: [UNCHECKABLE_MESSAGE] });
    }
    const withheld = guard.replacedTokenIds();
    if (withheld.length > 0) {
      await recordAccess(
        this.access,
        caller,
        withheld.map((tokenId): Access => ({ entity_type: 'token', entity_id: tokenId, operation: 'use', via: 'react', reactor_id: reactorId, withheld: true })),
      );
    }
    return guarded;
  }

  /**
   * The reactor's application as a caller (its rules, computed as at authentication), or the caller itself. An
   * application deleted or expired since the reactor was made can tokenize nothing: 422 naming reactor.application,
   * which a PUT or PATCH of the reactor (another application, or none) repairs.
   */
  private async tokenizingCaller(caller: Caller, applicationId: string | null): Promise<Caller> {
    if (applicationId === null) return caller;
    const app = await this.applications.get(caller.principal.tenantId, applicationId);
    if (!app || (app.expires_at !== null && Date.parse(app.expires_at) <= caller.now.getTime())) {
      throw new DomainError('unprocessable', "The reactor's application no longer exists or has expired.", {
        'reactor.application': ["The reactor's application no longer exists or has expired; update the reactor's application."],
      });
    }
    return { ...caller, principal: principalOf(app) };
  }
}

export const UNCHECKABLE_MESSAGE = "The reactor's answer could not be checked for token data within the bounds of one request; it is withheld.";

/**
 * The fields of the tokens a reactor's `tokenize` made that the code wrote (metadata, containers): checked as `raw` is.
 * The rest of each view is the vault's own (ids, times, the data as the caller's rule shows it).
 */
function* guardCodeWrittenFields(guard: FlowBackGuard, tokens: unknown): Generator<void, unknown, void> {
  if (Array.isArray(tokens)) {
    const items: unknown[] = [];
    for (const item of tokens) items.push(yield* guardCodeWrittenFields(guard, item));
    return items;
  }
  if (typeof tokens !== 'object' || tokens === null) return tokens;
  const object = tokens as Record<string, unknown>;
  if (typeof object.id === 'string' && typeof object.type === 'string' && Array.isArray(object.containers)) {
    return { ...object, containers: yield* guard.json(object.containers), metadata: yield* guard.json(object.metadata) };
  }
  const guarded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    Object.defineProperty(guarded, (yield* guard.text(key)), { value: yield* guardCodeWrittenFields(guard, value), enumerable: true, writable: true, configurable: true });
  }
  return guarded;
}

/** The body is `{ args }`; args may be left out (no args: `{}`), and nothing else may be sent. */
const argsOf = (body: unknown): unknown => {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validationError({ body: ['The body must be an object: { "args": … }.'] });
  const unknown = Object.keys(body).filter((key) => key !== 'args');
  if (unknown.length > 0) throw validationError(fieldErrorsOf(unknown.map((key) => [key, [`${key} is not an allowed property.`]] as const)));
  const { args } = body as { args?: unknown };
  return args === undefined ? {} : args;
};

/** Values (leaves, arrays and objects) detokenized args may hold: what the code is handed and an error is redacted of. */
export const MAX_DETOKENIZED_ARGS_VALUES = MAX_JSON_VALUES;

/** Values of args and configuration past which a failed run's message is withheld rather than redacted. */
export const MAX_REDACTED_VALUES = 10_000;

export const WITHHELD_MESSAGE = 'The reactor failed; its message is withheld: its args hold too many values to take them out of it.';
