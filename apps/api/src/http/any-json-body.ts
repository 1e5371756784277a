// POST /tokenize and POST /detokenize take any JSON value (body-parsing.ts lets arrays and primitives through for
// their paths only) and answer any JSON value; the domain reads the body and names every bad path.
import type { Response } from 'express';
import { validationError } from '@vault/domain';

/** No body at all (not even `null`) is a 400 on `body`; any JSON value goes on to the domain. */
export const requiredBody = (body: unknown): unknown => {
  if (body === undefined) throw validationError({ body: ['A JSON request body is required.'] }, 'The request has no body.');
  return body;
};

/**
 * The answer as JSON text: it may be a string, number, boolean or null, which Nest would send as text (or as an
 * empty body), so it is serialised here.
 */
export async function answerAsJson(res: Response, result: Promise<unknown>, status: number): Promise<string> {
  const value = await result;
  res.status(status).type('application/json');
  return JSON.stringify(value);
}
