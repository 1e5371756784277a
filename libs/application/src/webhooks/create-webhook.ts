// POST /webhooks: the body validated (the URL on VAULT_WEBHOOK_ALLOWED_HOSTS), a random signing secret made and sealed
// under the webhook's own key, WebhookCreated recorded. The secret is in this answer and nowhere else in plaintext.
import { assertWebhookIdFree, DomainError, validateWebhookInput, webhookDecider, webhookStream, type DestinationHosts, type WebhookCommand } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { IdGenerator } from '../ports/system';
import type { TokenCrypto } from '../ports/token-crypto';
import type { WebhookCrypto, WebhookReadModel } from '../ports/webhooks';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { sealWebhookSecret } from './sealing/webhook-secret';
import { activeWebhook, toWebhookView, type WebhookView } from './webhook-view';

export class CreateWebhookCommand extends VaultCommand<WebhookView> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class CreateWebhookHandler implements UseCaseHandler<CreateWebhookCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly crypto: TokenCrypto,
    private readonly webhookCrypto: WebhookCrypto,
    private readonly ids: IdGenerator,
    private readonly hosts: DestinationHosts,
    private readonly webhooks: Pick<WebhookReadModel, 'list'>,
    /** Webhooks one tenant may have (VAULT_WEBHOOKS_PER_TENANT). */
    private readonly perTenant: number,
  ) {}

  async execute({ caller, body }: CreateWebhookCommand): Promise<WebhookView> {
    const tenantId = caller.principal.tenantId;
    const valid = validateWebhookInput(body, this.hosts);
    // Each webhook follows the log on its own: a tenant may not make the vault follow it without bound.
    if ((await this.webhooks.list(tenantId, { page: 1, size: 1 })).total >= this.perTenant) {
      throw new DomainError('unprocessable', `A tenant has at most ${this.perTenant} webhooks; delete one first.`);
    }
    const id = this.ids.newId();
    const secret = this.webhookCrypto.newSigningSecret();
    const { state } = await this.runner.run(
      webhookDecider,
      webhookStream(tenantId, id),
      async (current): Promise<WebhookCommand> => {
        assertWebhookIdFree(current);
        const sealed_secret = await sealWebhookSecret(this.crypto, tenantId, id, secret);
        return { type: 'CreateWebhook', data: { id, content: { ...valid, sealed_secret } } };
      },
      contextOf(caller),
    );
    return { ...toWebhookView(activeWebhook(state)), signing_secret: secret };
  }
}
