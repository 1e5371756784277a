// POST /detokenize: every detokenization expression in a JSON body replaced by the token data the caller may see.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { DetokenizeQuery } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { answerAsJson, requiredBody } from '../http/any-json-body';
import { ApiJsonBody } from '../http/body-parsing';
import { Caller, CurrentCaller } from '../http/caller';
import { ApiProblem } from '../http/problem';
import { ANY_JSON, DETOKENIZE_DESCRIPTION, DETOKENIZE_EXAMPLE, DETOKENIZED_EXAMPLE, NOT_FOUND_ERRORS } from './detokenize.dto';

@ApiTags('Detokenize')
@Controller()
export class DetokenizeController {
  constructor(private readonly bus: VaultBus) {}

  @Post('detokenize')
  @HttpCode(200)
  @ApiOperation({ operationId: 'detokenize', summary: 'Replace the detokenization expressions of a JSON body by token data', description: DETOKENIZE_DESCRIPTION })
  @ApiJsonBody({
    schema: ANY_JSON,
    examples: { card: { summary: 'A JSON token whole, and its last four digits in a sentence', value: DETOKENIZE_EXAMPLE } },
    invalid: { detail: 'One or more validation errors occurred.', errors: NOT_FOUND_ERRORS },
  })
  @ApiOkResponse({ description: 'The body with every expression replaced', content: { 'application/json': { schema: ANY_JSON, example: DETOKENIZED_EXAMPLE } } })
  @ApiProblem(
    400,
    'An expression that does not parse or whose filters fail, or a token that does not exist or that no rule covers (the same message for both), named by path.',
  )
  @ApiProblem(
    403,
    "Or the caller's rule for a token redacts it (or masks a token without a mask), or filters a token it does not reveal: the message names the path.",
    'The access rule that applies to the token at card does not show its data.',
  )
  @RequirePermission('token:read')
  detokenize(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return answerAsJson(res, this.bus.ask(new DetokenizeQuery(caller, requiredBody(body))), 200);
  }
}
