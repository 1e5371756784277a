import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CreatedTenant, TenantsService } from '@vault/application';

export class CreateTenantCommand extends Command<CreatedTenant> {
  constructor(readonly name: string, readonly correlationId: string) {
    super();
  }
}

@CommandHandler(CreateTenantCommand)
export class CreateTenantHandler implements ICommandHandler<CreateTenantCommand> {
  constructor(private readonly tenants: TenantsService) {}
  execute(command: CreateTenantCommand) {
    return this.tenants.create(command.name, { type: 'operator', id: 'cli' }, command.correlationId);
  }
}
