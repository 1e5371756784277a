// What each webhook write records. Pure: the id comes from the command, time and tenant from the context; the handler
// validated the body (validateWebhookInput) and sealed the signing secret beforehand.
import type { Decider } from '../shared/decider';
import { conflict, DomainError, notFound } from '../shared/errors';
import type { CommandContext } from '../shared/events';
import type { WebhookEvent } from './webhook.events';
import { evolveWebhook } from './webhook.evolve';
import { initialWebhookState, visibleWebhook, type WebhookRecord, type WebhookState } from './webhook.state';
import type { ValidWebhook, WebhookContent } from './webhook.types';

export interface CreateWebhook {
  type: 'CreateWebhook';
  data: { id: string; content: WebhookContent };
}

/** PUT: the settings replaced; the signing secret stays the one the create made. */
export interface UpdateWebhook {
  type: 'UpdateWebhook';
  data: { id: string; settings: ValidWebhook };
}

export interface DeleteWebhook {
  type: 'DeleteWebhook';
  data: { id: string };
}

export type WebhookCommand = CreateWebhook | UpdateWebhook | DeleteWebhook;

export const decideWebhook = (command: WebhookCommand, state: WebhookState, ctx: CommandContext): WebhookEvent[] => {
  const tenantId = requireTenant(ctx);
  switch (command.type) {
    case 'CreateWebhook': {
      const { id, content } = command.data;
      assertWebhookIdFree(state);
      return [{ type: 'WebhookCreated', data: { id, tenant_id: tenantId, ...content, created_by: ctx.actor.id, created_at: ctx.now.toISOString() } }];
    }
    case 'UpdateWebhook': {
      const webhook = findVisibleWebhook(state, ctx);
      const { name, url, events, enabled } = command.data.settings;
      return [
        {
          type: 'WebhookUpdated',
          data: {
            id: webhook.id,
            tenant_id: webhook.tenant_id,
            name,
            url,
            events,
            enabled,
            sealed_secret: webhook.sealed_secret,
            modified_by: ctx.actor.id,
            modified_at: ctx.now.toISOString(),
          },
        },
      ];
    }
    case 'DeleteWebhook': {
      const webhook = findVisibleWebhook(state, ctx);
      return [{ type: 'WebhookDeleted', data: { id: webhook.id, tenant_id: webhook.tenant_id, deleted_by: ctx.actor.id, deleted_at: ctx.now.toISOString() } }];
    }
    default: {
      const unhandled: never = command;
      throw new Error(`Unknown webhook command ${(unhandled as { type: string }).type}`);
    }
  }
};

/** A create needs a stream with no history: a live or deleted webhook with this id is a conflict. */
export const assertWebhookIdFree = (state: WebhookState): void => {
  if (state.status !== 'absent') throw conflict('A webhook with this id already exists.');
};

/** The webhook an update or delete acts on. Missing, deleted and other tenants' webhooks all answer the same 404. */
export const findVisibleWebhook = (state: WebhookState, ctx: CommandContext): WebhookRecord => {
  const webhook = visibleWebhook(state, ctx.tenantId);
  if (!webhook) throw notFound('Webhook');
  return webhook;
};

const requireTenant = (ctx: CommandContext): string => {
  if (!ctx.tenantId) throw new DomainError('forbidden', 'Webhooks belong to a tenant; this caller acts for none.');
  return ctx.tenantId;
};

export const webhookDecider: Decider<WebhookCommand, WebhookState, WebhookEvent> = {
  decide: decideWebhook,
  evolve: evolveWebhook,
  initialState: initialWebhookState,
};
