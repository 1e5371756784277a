// POST /detokenize: every detokenization expression in a JSON body replaced by the token data the caller may see.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DetokenizeQuery } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { answerAsJson, requiredBody } from '../http/any-json-body';
import { Caller, CurrentCaller } from '../http/caller';

@Controller()
export class DetokenizeController {
  constructor(private readonly bus: VaultBus) {}

  @Post('detokenize')
  @HttpCode(200)
  @RequirePermission('token:read')
  detokenize(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return answerAsJson(res, this.bus.ask(new DetokenizeQuery(caller, requiredBody(body))), 200);
  }
}
