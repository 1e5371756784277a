// Tokens: create, read, merge-patch, delete, and the Lucene-style search.
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { ApiIdParam, Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { ApiPageResponse, paginated } from '../http/pagination';
import { ApiProblem, LOST_RACE } from '../http/problem';
import { CreateTokenCommand, DeleteTokenCommand, GetTokenQuery, SearchTokensQuery, UpdateTokenCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import {
  BAD_DATA_ERRORS,
  CREATE_TOKEN_EXAMPLE,
  CreateTokenBody,
  SEARCH_QUERY_SYNTAX,
  SEARCH_TOKENS_EXAMPLE,
  SearchTokensBody,
  TOKEN_EXAMPLE,
  TOKEN_PAGE_EXAMPLE,
  TokenSchema,
  UPDATE_TOKEN_EXAMPLE,
  UPDATED_TOKEN_EXAMPLE,
} from './tokens.dto';

/** Token bodies are validated by the domain (per type, every field by path), so they pass through as JSON. */
type TokenBody = Record<string, unknown>;

@Controller('tokens')
export class TokensController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @ApiTags('Tokens')
  @ApiOperation({ operationId: 'createToken', summary: 'Create a token' })
  @ApiJsonBody({
    type: CreateTokenBody,
    examples: { ssn: { summary: 'A social security number with metadata', value: CREATE_TOKEN_EXAMPLE } },
    invalid: { detail: 'One or more validation errors occurred.', errors: BAD_DATA_ERRORS },
  })
  @ApiCreatedResponse({ description: "Created; `data` as the caller's token:create rule for it shows it", type: TokenSchema, example: TOKEN_EXAMPLE })
  @ApiOkResponse({ description: '`deduplicate_token` found an existing token; shown as the rule that matched it shows it', type: TokenSchema, example: TOKEN_EXAMPLE })
  @ApiProblem(403, "Or no access rule of the application grants token:create on the token's containers.", "No access rule of this application grants token:create on the token's containers.")
  @ApiProblem(409, 'The `id` is taken in this tenant (ids of other tenants do not count).', 'A token with this id already exists.')
  @RequirePermission('token:create')
  async create(@CurrentCaller() caller: Caller, @Body() body: TokenBody, @Res({ passthrough: true }) res: Response) {
    const { token, created } = await this.bus.execute(new CreateTokenCommand(caller, body));
    res.status(created ? 201 : 200);
    return token;
  }

  @Post('search')
  @HttpCode(200)
  @ApiTags('Search')
  @ApiOperation({
    operationId: 'searchTokens',
    summary: 'Search tokens with a Lucene-style query',
    description: `${SEARCH_QUERY_SYNTAX} Ordered by created_at descending, then id. Each token is shown as the caller's token:search rule for it shows it; tokens no rule covers are not found.`,
  })
  @ApiJsonBody({
    type: SearchTokensBody,
    required: false,
    examples: { ssnInPii: { summary: 'Social security numbers ending in 6789, in /pii/ or below', value: SEARCH_TOKENS_EXAMPLE } },
    invalid: { detail: 'The query is not valid.', errors: { query: ["query: unknown field 'colour' at 1:1; fields are id, type, …"] } },
  })
  @ApiPageResponse(TokenSchema, 'A page of tokens', TOKEN_PAGE_EXAMPLE)
  @RequirePermission('token:search')
  async search(@CurrentCaller() caller: Caller, @Body() body: SearchTokensBody) {
    const page = body.page ?? 1;
    const size = body.size ?? 20;
    const result = await this.bus.ask(new SearchTokensQuery(caller, { query: body.query ?? null, page, size }));
    return paginated(result, page, size);
  }

  @Get(':id')
  @ApiTags('Tokens')
  @ApiOperation({ operationId: 'getToken', summary: 'Get a token', description: "`data` as the caller's token:read rule for the token shows it." })
  @ApiIdParam('token')
  @ApiOkResponse({ description: 'The token', type: TokenSchema, example: TOKEN_EXAMPLE })
  @ApiProblem(404, 'No such token in your tenant, or none of your rules covers it (the same answer).', 'Token was not found.')
  @RequirePermission('token:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetTokenQuery(caller, id));
  }

  @Patch(':id')
  @ApiTags('Tokens')
  @ApiOperation({
    operationId: 'updateToken',
    summary: 'Update a token with a JSON merge patch',
    description:
      "RFC 7396: a member replaces the field, null resets it to the type's default (or removes a metadata entry). Changing mask, search_indexes or fingerprint_expression without new `data` needs the caller's token:update rule for the token to be `reveal` (else 403 naming the field). Changing containers without new `data` is a 403 when any of the caller's rules would then show the token more revealingly than before.",
  })
  @ApiIdParam('token')
  @ApiJsonBody({
    schema: { type: 'object', description: 'Any fields of CreateTokenBody but `id`, `type` and `deduplicate_token`; null resets one' },
    mergePatch: true,
    examples: { metadata: { summary: 'Drop one metadata entry, add another', value: UPDATE_TOKEN_EXAMPLE } },
  })
  @ApiOkResponse({ description: "The updated token, shown as the caller's token:update rule for where it now is shows it", type: TokenSchema, example: UPDATED_TOKEN_EXAMPLE })
  @ApiProblem(
    403,
    'Or the patch would reveal more than the rule shows: new derived fields without new `data` under a rule that does not reveal, or a move to containers other rules show more of.',
    'Changing mask without new data needs a reveal rule for token:update on this token: it would compute new values from data this application may not see.',
  )
  @ApiProblem(404, 'No such token in your tenant, or none of your rules covers it.', 'Token was not found.')
  @ApiProblem(409, 'Lost a race with a concurrent write to the token, five times over.', LOST_RACE)
  @RequirePermission('token:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() patch: TokenBody) {
    return this.bus.execute(new UpdateTokenCommand(caller, id, patch));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiTags('Tokens')
  @ApiOperation({ operationId: 'deleteToken', summary: 'Delete a token', description: 'Its data key is destroyed, so the data cannot be recovered, not even from the event log.' })
  @ApiIdParam('token')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblem(404, 'No such token in your tenant, or none of your rules covers it.', 'Token was not found.')
  @RequirePermission('token:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteTokenCommand(caller, id));
  }
}
