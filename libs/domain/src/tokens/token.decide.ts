// What each token write records. Pure: the id comes from the command, time and tenant from the context, and the
// encrypted data, fingerprint and hashes were computed by the application layer through TokenCrypto beforehand.
import { conflict, DomainError, notFound, validationError } from '../shared/errors';
import type { Decider } from '../shared/decider';
import type { CommandContext } from '../shared/events';
import type { TokenContent, TokenDeletionReason, TokenEvent } from './token.events';
import { evolveToken } from './token.evolve';
import { initialTokenState, isExpired, visibleToken, type TokenRecord, type TokenState } from './token.state';

/** `id` is chosen by the caller (the request's, or a generated one) so a retry after a lost race keeps it. */
export interface CreateToken {
  type: 'CreateToken';
  data: { id: string; content: TokenContent };
}

/** The merge patch is already applied and re-evaluated: `content` is the whole token after it. Its type never changes. */
export interface UpdateToken {
  type: 'UpdateToken';
  data: { id: string; content: Omit<TokenContent, 'type'> };
}

/** `reason: 'expired'` is the sweep's delete, which (unlike a caller's) is allowed exactly when the token has expired. */
export interface DeleteToken {
  type: 'DeleteToken';
  data: { id: string; reason?: TokenDeletionReason };
}

export type TokenCommand = CreateToken | UpdateToken | DeleteToken;

export const decideToken = (command: TokenCommand, state: TokenState, ctx: CommandContext): TokenEvent[] => {
  const tenantId = requireTenant(ctx);
  switch (command.type) {
    case 'CreateToken':
      return create(command, state, ctx, tenantId);
    case 'UpdateToken':
      return update(command, state, ctx);
    case 'DeleteToken':
      return remove(command, state, ctx, tenantId);
    default: {
      const unhandled: never = command;
      throw new Error(`Unknown token command ${(unhandled as { type: string }).type}`);
    }
  }
};

const create = ({ data: { id, content } }: CreateToken, state: TokenState, ctx: CommandContext, tenantId: string) => {
  assertTokenIdFree(state);
  assertExpiryInFuture(content.expires_at, ctx);
  const event: TokenEvent = {
    type: 'TokenCreated',
    data: { id, tenant_id: tenantId, ...content, created_by: ctx.actor.id, created_at: ctx.now.toISOString() },
  };
  return [event];
};

const update = ({ data: { id, content } }: UpdateToken, state: TokenState, ctx: CommandContext) => {
  const token = findVisibleToken(state, ctx);
  assertExpiryInFuture(content.expires_at, ctx);
  const event: TokenEvent = {
    type: 'TokenUpdated',
    data: {
      id,
      tenant_id: token.tenant_id,
      type: token.type,
      ...content,
      modified_by: ctx.actor.id,
      modified_at: ctx.now.toISOString(),
    },
  };
  return [event];
};

const remove = (command: DeleteToken, state: TokenState, ctx: CommandContext, tenantId: string) => {
  const { id, reason = 'requested' } = command.data;
  if (reason === 'requested') findVisibleToken(state, ctx);
  else if (state.status !== 'active' || state.token.tenant_id !== tenantId) throw notFound('Token');
  else if (!isExpired(state.token, ctx.now)) throw conflict('The token has not expired.');
  const event: TokenEvent = {
    type: 'TokenDeleted',
    data: { id, tenant_id: tenantId, reason, deleted_by: ctx.actor.id, deleted_at: ctx.now.toISOString() },
  };
  return [event];
};

/**
 * A create needs an unused id. A deleted id stays taken within the tenant (taken: 409). The stream is the
 * tenant's own, so another tenant's token with this id is not in this state at all: its id is as free here as an
 * unused one. (The create handler asks this before it seals anything, so a taken id never leaves a data key behind.)
 */
export const assertTokenIdFree = (state: TokenState): void => {
  if (state.status !== 'absent') throw conflict('A token with this id already exists.');
};

/**
 * The token an update or delete acts on. Missing, deleted, expired and other tenants' tokens all answer the same 404,
 * so none can be told apart. (The update handler asks this before it decrypts the data to build the patch.)
 */
export const findVisibleToken = (state: TokenState, ctx: CommandContext): TokenRecord => {
  const token = visibleToken(state, ctx.tenantId, ctx.now);
  if (!token) throw notFound('Token');
  return token;
};

/** Validation already checks this against the request's clock; decide re-checks it against the command's. */
const assertExpiryInFuture = (expiresAt: string | null, ctx: CommandContext): void => {
  if (expiresAt !== null && Date.parse(expiresAt) <= ctx.now.getTime()) {
    throw validationError({ expires_at: ['expires_at must be in the future.'] });
  }
};

const requireTenant = (ctx: CommandContext): string => {
  if (!ctx.tenantId) throw new DomainError('forbidden', 'Tokens belong to a tenant; this caller acts for none.');
  return ctx.tenantId;
};

/** decide, evolve and the empty state together, as the command handlers and the given/when/then specs use them. */
export const tokenDecider: Decider<TokenCommand, TokenState, TokenEvent> = {
  decide: decideToken,
  evolve: evolveToken,
  initialState: initialTokenState,
};
