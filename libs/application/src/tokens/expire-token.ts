// The expiry sweep's delete of one expired token, as the system actor: the key shredder destroys its key like any
// delete's.
import { tokenDecider, tokenStream, type CommandContext, type TokenCommand } from '@vault/domain';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import type { CommandRunner } from '../commands/command-runner';
import { VaultCommand, type UseCaseHandler } from '../shared/use-case';

export class ExpireTokenCommand extends VaultCommand<void> {
  constructor(
    readonly tenantId: string,
    readonly id: string,
    readonly now: Date,
  ) {
    super();
  }
}

export class ExpireTokenHandler implements UseCaseHandler<ExpireTokenCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ tenantId, id, now }: ExpireTokenCommand): Promise<void> {
    const ctx: CommandContext = { tenantId, actor: { type: 'system', id: 'expiry-sweep' }, now, correlationId: `expiry-${id}` };
    const command: TokenCommand = { type: 'DeleteToken', data: { id, reason: 'expired' } };
    const { position } = await this.runner.run(tokenDecider, tokenStream(tenantId, id), command, ctx);
    await awaitShredding(this.shredding, position);
  }
}
