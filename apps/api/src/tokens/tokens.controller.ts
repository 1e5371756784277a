// Tokens: create, read, merge-patch, delete, and the Lucene-style search.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import type { Response } from 'express';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { MAX_PAGE, MAX_PAGE_SIZE, paginated } from '../http/pagination';
import { CreateTokenCommand, DeleteTokenCommand, GetTokenQuery, SearchTokensQuery, UpdateTokenCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';

/**
 * page 1..1,000,000,000 and size 1..100 as in PageQuery (apps/api/src/http/pagination.ts). Decorators register
 * bottom-up and the pipe stops at a field's first failure, so the integer check sits closest to the property: a
 * string "20" gets only "size must be an integer".
 */
export class SearchTokensBody {
  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsString({ message: 'query must be a string' })
  query?: string | null;

  @IsOptional()
  @Max(MAX_PAGE, { message: `page must not be greater than ${MAX_PAGE}` })
  @Min(1, { message: 'page must not be less than 1' })
  @IsInt({ message: 'page must be an integer' })
  page?: number;

  @IsOptional()
  @Max(MAX_PAGE_SIZE, { message: `size must not be greater than ${MAX_PAGE_SIZE}` })
  @Min(1, { message: 'size must not be less than 1' })
  @IsInt({ message: 'size must be an integer' })
  size?: number;

  /** The constraints above, by hand, for the body pipe's fast path (AcceptsAsIs): null and absent are both optional. */
  static acceptsAsIs(body: unknown): boolean {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    for (const key of Object.keys(body)) if (key !== 'query' && key !== 'page' && key !== 'size') return false;
    const { query, page, size } = body as Record<string, unknown>;
    return (query == null || typeof query === 'string') && optionalIntIn(page, 1, MAX_PAGE) && optionalIntIn(size, 1, MAX_PAGE_SIZE);
  }
}

const optionalIntIn = (value: unknown, min: number, max: number): boolean =>
  value == null || (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max);

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
