// POST /tokenize (also POST /tokens/tokenize) and POST /detokenize. Their bodies are any JSON (body-parsing.ts lets
// arrays and primitives through for these paths only); the domain reads them and names every bad path.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DetokenizeQuery, TokenizeCommand } from '@vault/application';
import { validationError } from '@vault/domain';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller } from '../http/caller';

@Controller()
export class TokenizeController {
  constructor(private readonly bus: VaultBus) {}

  @Post('tokenize')
  @RequirePermission('token:create')
  tokenize(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.answer(res, this.bus.execute(new TokenizeCommand(caller, required(body))), 201);
  }

  /** The same endpoint under /tokens, as the hosted vaults' SDKs call it. */
  @Post('tokens/tokenize')
  @RequirePermission('token:create')
  tokenizeUnderTokens(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.tokenize(caller, body, res);
  }

  @Post('detokenize')
  @HttpCode(200)
  @RequirePermission('token:read')
  detokenize(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.answer(res, this.bus.ask(new DetokenizeQuery(caller, required(body))), 200);
  }

  /**
   * The answer as JSON text: it may be a string, number, boolean or null, which Nest would send as text (or as an
   * empty body), so it is serialised here.
   */
  private async answer(res: Response, result: Promise<unknown>, status: number): Promise<string> {
    const value = await result;
    res.status(status).type('application/json');
    return JSON.stringify(value);
  }
}

/** No body at all (not even `null`) is a 400 on `body`; any JSON value goes on to the domain. */
const required = (body: unknown): unknown => {
  if (body === undefined) throw validationError({ body: ['A JSON request body is required.'] }, 'The request has no body.');
  return body;
};
