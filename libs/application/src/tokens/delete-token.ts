// DELETE /tokens/{id}: TokenDeleted, then the answer waits for the key shredder to destroy the token's data key.
import { findVisibleToken, ruleFor, tokenDecider, tokenStream, type TokenCommand } from '@vault/domain';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';

export class DeleteTokenCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteTokenHandler implements UseCaseHandler<DeleteTokenCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteTokenCommand): Promise<void> {
    const ctx = contextOf(caller);
    const rules = caller.principal.accessRules;
    const { position } = await this.runner.run(
      tokenDecider,
      tokenStream(caller.principal.tenantId, id),
      (state): TokenCommand => {
        // The caller's delete rule is asked of the token the decider finds; without one the token is as missing.
        ruleFor(rules, findVisibleToken(state, ctx), 'token:delete');
        return { type: 'DeleteToken', data: { id } };
      },
      ctx,
    );
    await awaitShredding(this.shredding, position);
  }
}
