// RFC 7807 problem details, the one error body shape of the API (and its schema in the OpenAPI document).
import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, ApiSchema, getSchemaPath, type HeadersObject } from '@nestjs/swagger';
import type { FieldErrors } from '@vault/domain';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The 409 of a write that lost its race with another one five times over (the command runner's retries). */
export const LOST_RACE = 'The resource was changed by another request at the same time; retry the request.';

@ApiSchema({ name: 'Problem', description: 'RFC 7807 problem details: the body of every error answer.' })
export class Problem {
  @ApiProperty({ examples: ['https://httpstatuses.io/400'] })
  type!: string;

  @ApiProperty({ description: 'Fixed for each status', examples: ['One or more validation errors occurred.'] })
  title!: string;

  @ApiProperty({ type: 'integer', examples: [400] })
  status!: number;

  @ApiPropertyOptional({ description: 'What went wrong; names fields and allowed values, never a value that was sent' })
  detail?: string;

  @ApiPropertyOptional()
  instance?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    description: 'Field path (`rules[1].priority`, `card.number.type`, `body`) → its messages',
    examples: [{ size: ['size must not be greater than 100'] }],
  })
  errors?: FieldErrors;
}

const TITLES: Record<number, string> = {
  400: 'One or more validation errors occurred.',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'An unexpected error occurred.',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function problem(status: number, detail?: string, errors?: FieldErrors): Problem {
  return {
    type: `https://httpstatuses.io/${status}`,
    title: TITLES[status] ?? 'Error',
    status,
    ...(detail ? { detail } : {}),
    ...(errors && Object.keys(errors).length > 0 ? { errors } : {}),
  };
}

/**
 * An error answer in the OpenAPI document: problem details, with the body the service sends then as its example.
 * Several at one status (a bad path id and a bad body are both 400s) add up: their descriptions are joined in the order
 * the decorators apply, bottom-up, and the last one's example stays. So @RequirePermission goes right above the handler:
 * its generic 403 comes first, and a route's own 403 ("Or …") adds to it.
 */
export const ApiProblem = (status: number, description: string, detail?: string, errors?: FieldErrors, headers?: HeadersObject) =>
  applyDecorators(
    ApiExtraModels(Problem),
    ApiResponse({
      status,
      description,
      ...(headers ? { headers } : {}),
      content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: getSchemaPath(Problem) }, example: problem(status, detail, errors) } },
    }),
  );
