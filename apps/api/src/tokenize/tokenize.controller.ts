// POST /tokenize, also served as POST /tokens/tokenize: every token request and leaf of a JSON body becomes a token.
import { applyDecorators, Body, Controller, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { TokenizeCommand } from '@vault/application';
import { MAX_TOKENIZE_TOKENS } from '@vault/domain';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { answerAsJson, requiredBody } from '../http/any-json-body';
import { ApiJsonBody } from '../http/body-parsing';
import { Caller, CurrentCaller } from '../http/caller';
import { ApiProblem, LOST_RACE } from '../http/problem';
import { CreateTokenBody, TokenSchema } from '../tokens/tokens.dto';
import { TOKENIZE_ANSWER, TOKENIZE_BODY, TOKENIZE_DESCRIPTION, TOKENIZE_EXAMPLE, TOKENIZED_EXAMPLE } from './tokenize.dto';

/** The one operation, under both paths. */
const ApiTokenize = (operationId: string, summary: string) =>
  applyDecorators(
    ApiOperation({ operationId, summary, description: TOKENIZE_DESCRIPTION }),
    ApiExtraModels(CreateTokenBody, TokenSchema),
    ApiJsonBody({
      schema: TOKENIZE_BODY,
      examples: { nested: { summary: 'A card request and a customer record, whose leaves become tokens', value: TOKENIZE_EXAMPLE } },
      invalid: {
        detail: 'One or more validation errors occurred.',
        errors: { body: [`A tokenize request creates at most ${MAX_TOKENIZE_TOKENS} tokens.`] },
      },
    }),
    ApiCreatedResponse({ description: 'Every token created', content: { 'application/json': { schema: TOKENIZE_ANSWER, example: TOKENIZED_EXAMPLE } } }),
    ApiProblem(
      403,
      "Or no access rule grants token:create on a token's containers: `errors` names each such path, and no token is created.",
      "No access rule of this application grants token:create on the containers of the token at card (and 1 more, named in errors).",
      { 'card.containers': ["No access rule of this application grants token:create on this token's containers."] },
    ),
    ApiProblem(409, 'A custom `id` is taken in this tenant (the message names its path), or a lost race with no retry left.', LOST_RACE),
  );

@ApiTags('Tokenize')
@Controller()
export class TokenizeController {
  constructor(private readonly bus: VaultBus) {}

  @Post('tokenize')
  @ApiTokenize('tokenize', 'Tokenize every request and leaf of a JSON body')
  @RequirePermission('token:create')
  tokenize(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return answerAsJson(res, this.bus.execute(new TokenizeCommand(caller, requiredBody(body))), 201);
  }

  /** The same endpoint under /tokens, as the hosted vaults' SDKs call it. */
  @Post('tokens/tokenize')
  @ApiTokenize('tokenizeUnderTokens', 'Tokenize a JSON body (the same as POST /tokenize)')
  @RequirePermission('token:create')
  tokenizeUnderTokens(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.tokenize(caller, body, res);
  }
}
