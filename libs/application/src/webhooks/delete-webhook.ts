// DELETE /webhooks/{id}: WebhookDeleted; the dispatcher stops the webhook's deliveries as it reads the event, and the
// answer waits for the key shredder to destroy the key of its signing secret (no delivery can be signed after it).
import { webhookDecider, webhookStream, type WebhookCommand } from '@vault/domain';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';

export class DeleteWebhookCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteWebhookHandler implements UseCaseHandler<DeleteWebhookCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteWebhookCommand): Promise<void> {
    const command: WebhookCommand = { type: 'DeleteWebhook', data: { id } };
    const { position } = await this.runner.run(webhookDecider, webhookStream(caller.principal.tenantId, id), command, contextOf(caller));
    await awaitShredding(this.shredding, position);
  }
}
