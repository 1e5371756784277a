// class-validator DTOs → 400 problem details whose `errors` keys are field paths (`rules[1].priority`).
import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { fieldErrorsOf, type FieldErrors } from '@vault/domain';
import { problem } from './problem';
import { echoedName, knownProperties, prepareDtoBody, type DtoClass } from './raw-body-checks';

/** Field paths come from the request, so they key a Map; the result has each as an own property. */
export function fieldErrors(errors: ValidationError[]): FieldErrors {
  const out = new Map<string, string[]>();
  const pending = errors.map((error) => ({ error, parent: '' }));
  for (let next = 0; next < pending.length; next++) {
    const { error, parent } = pending[next];
    // An unknown property's name comes from the request: echoed cut short (raw-body-checks.ts).
    const property = error.constraints?.whitelistValidation ? echoedName(error.property) : error.property;
    const path = /^\d+$/.test(property) ? `${parent}[${property}]` : parent ? `${parent}.${property}` : property;
    if (error.constraints) {
      out.set(
        path,
        Object.entries(error.constraints).map(([kind, message]) =>
          kind === 'whitelistValidation' ? `${path} is not a known property` : message.replace(error.property, path),
        ),
      );
    }
    pending.push(...(error.children ?? []).map((child) => ({ error: child, parent: path })));
  }
  return fieldErrorsOf(out);
}

const invalid = (errors: FieldErrors) => new BadRequestException(problem(400, 'One or more validation errors occurred.', errors));

/**
 * A DTO of a hot route may recognise its common valid bodies by hand: true only for a body that every one of its
 * constraints accepts as it is (no unknown property, nothing to transform). Anything else, valid or not, takes the
 * full way, so every 400 is still class-validator's.
 */
export interface AcceptsAsIs {
  acceptsAsIs(body: unknown): boolean;
}

/**
 * The global pipe validates bodies only: query strings have their own, laxer pipe (unknown parameters are ignored).
 * A DTO body is first checked and reduced as parsed (list maxima, prototype-named properties, values the DTO does not
 * walk into cut to empty shells: raw-body-checks.ts), then transformed and validated.
 */
class BodyValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return value;
    const dto = metadata.metatype as (DtoClass & Partial<AcceptsAsIs>) | undefined;
    // A hot route's plainly valid body skips class-transformer and class-validator (about 4% of a search's CPU).
    if (dto?.acceptsAsIs?.(value)) return Object.assign(Object.create(dto.prototype) as object, value);
    // ValidationPipe's own test: a body typed as a plain type (Object, String …) passes through to the domain as parsed.
    if (!this.toValidate(metadata)) return super.transform(value, metadata);
    const prepared = prepareDtoBody(value, metadata.metatype as DtoClass);
    if (prepared.errors) throw invalid(prepared.errors);
    return super.transform(prepared.body, metadata);
  }
}

/**
 * Bodies: unknown properties are a 400. One message per field: class-validator stops at a field's first failing
 * constraint, and DTOs list the type check closest to the property (decorators register bottom-up).
 */
export const vaultValidationPipe = () =>
  new BodyValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => invalid(fieldErrors(errors)),
  });

/**
 * Query strings: unknown parameters are ignored (as documented), known ones validated. A known parameter given in bracket
 * form (`name[]=a`, `page[x]=1`) is a 400 naming it, rather than an unknown parameter silently ignored.
 */
class QueryValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query' && this.toValidate(metadata) && value !== null && typeof value === 'object') {
      const errors = new Map<string, string[]>();
      for (const key of Object.keys(value)) {
        const bracket = key.indexOf('[');
        if (bracket <= 0) continue;
        // The DTO's properties are looked up only for a bracketed key: most requests have none.
        const name = key.slice(0, bracket);
        if (knownProperties(metadata.metatype as DtoClass).has(name)) errors.set(name, [`${name} must be given once, as a plain value`]);
      }
      if (errors.size > 0) throw invalid(fieldErrorsOf(errors));
    }
    return super.transform(value, metadata);
  }
}

export const vaultQueryPipe = () =>
  new QueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: false,
    stopAtFirstError: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => invalid(fieldErrors(errors)),
  });
