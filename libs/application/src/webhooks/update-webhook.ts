// PUT /webhooks/{id}: the name, URL, event types and enabled flag replaced; the signing secret stays.
import { validateWebhookInput, webhookDecider, webhookStream, type DestinationHosts, type WebhookCommand } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { activeWebhook, toWebhookView, type WebhookView } from './webhook-view';

export class UpdateWebhookCommand extends VaultCommand<WebhookView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly body: unknown,
  ) {
    super();
  }
}

export class UpdateWebhookHandler implements UseCaseHandler<UpdateWebhookCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly hosts: DestinationHosts,
  ) {}

  async execute({ caller, id, body }: UpdateWebhookCommand): Promise<WebhookView> {
    const settings = validateWebhookInput(body, this.hosts);
    const command: WebhookCommand = { type: 'UpdateWebhook', data: { id, settings } };
    const { state } = await this.runner.run(webhookDecider, webhookStream(caller.principal.tenantId, id), command, contextOf(caller));
    return toWebhookView(activeWebhook(state));
  }
}
