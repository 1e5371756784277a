// class-validator DTOs → 400 problem details whose `errors` keys are field paths (`rules[1].priority`).
import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import type { FieldErrors } from '@vault/domain';
import { problem } from './problem';

export function fieldErrors(errors: ValidationError[], parent = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    if (error.constraints) {
      out[path] = Object.entries(error.constraints).map(([kind, message]) =>
        kind === 'whitelistValidation' ? `${path} is not a known property` : message.replace(error.property, path),
      );
    }
    Object.assign(out, fieldErrors(error.children ?? [], path));
  }
  return out;
}

/** The global pipe validates bodies only: query strings have their own, laxer pipe (unknown parameters are ignored). */
class BodyValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return metadata.type === 'body' ? super.transform(value, metadata) : value;
  }
}

export const vaultValidationPipe = () =>
  new BodyValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException(problem(400, 'One or more validation errors occurred.', fieldErrors(errors))),
  });

/** Query strings: unknown parameters are ignored (API.md), known ones validated. */
export const vaultQueryPipe = () =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException(problem(400, 'One or more validation errors occurred.', fieldErrors(errors))),
  });
