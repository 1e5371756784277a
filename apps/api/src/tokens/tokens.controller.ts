// Tokens: create, read, merge-patch, delete, and the Lucene-style search.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { paginated } from '../http/pagination';
import { CreateTokenCommand, DeleteTokenCommand, GetTokenQuery, SearchTokensQuery, UpdateTokenCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { SearchTokensBody } from './tokens.dto';

/** Token bodies are validated by the domain (per type, every field by path), so they pass through as JSON. */
type TokenBody = Record<string, unknown>;

@Controller('tokens')
export class TokensController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @RequirePermission('token:create')
  async create(@CurrentCaller() caller: Caller, @Body() body: TokenBody, @Res({ passthrough: true }) res: Response) {
    const { token, created } = await this.bus.execute(new CreateTokenCommand(caller, body));
    res.status(created ? 201 : 200);
    return token;
  }

  @Post('search')
  @HttpCode(200)
  @RequirePermission('token:search')
  async search(@CurrentCaller() caller: Caller, @Body() body: SearchTokensBody) {
    const page = body.page ?? 1;
    const size = body.size ?? 20;
    const result = await this.bus.ask(new SearchTokensQuery(caller, { query: body.query ?? null, page, size }));
    return paginated(result, page, size);
  }

  @Get(':id')
  @RequirePermission('token:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetTokenQuery(caller, id));
  }

  @Patch(':id')
  @RequirePermission('token:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() patch: TokenBody) {
    return this.bus.execute(new UpdateTokenCommand(caller, id, patch));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('token:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteTokenCommand(caller, id));
  }
}
