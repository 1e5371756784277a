// POST /tokenize, also served as POST /tokens/tokenize: every token request and leaf of a JSON body becomes a token.
import { Body, Controller, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { TokenizeCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { answerAsJson, requiredBody } from '../http/any-json-body';
import { Caller, CurrentCaller } from '../http/caller';

@Controller()
export class TokenizeController {
  constructor(private readonly bus: VaultBus) {}

  @Post('tokenize')
  @RequirePermission('token:create')
  tokenize(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return answerAsJson(res, this.bus.execute(new TokenizeCommand(caller, requiredBody(body))), 201);
  }

  /** The same endpoint under /tokens, as the hosted vaults' SDKs call it. */
  @Post('tokens/tokenize')
  @RequirePermission('token:create')
  tokenizeUnderTokens(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.tokenize(caller, body, res);
  }
}
