// The few kinds of failure the domain reports; one HTTP filter maps each kind to a status.

export type DomainErrorKind =
  | 'validation' // 400
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'too_large' // 413: the change is larger than the event store takes in one write
  | 'unprocessable' // 422
  | 'unavailable' // 503: try again after `retryAfterSeconds` (a full reactor queue)
  | 'bad_gateway' // 502: a proxy's destination could not be reached or answered too much
  | 'gateway_timeout'; // 504: a proxy's destination did not answer in time

/** Field path (dotted, with [i] for array items, e.g. `request_parameters[2].name`) to messages. */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errors?: FieldErrors,
    /** For 'unavailable': when to try again (the Retry-After header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validationError = (errors: FieldErrors, message = 'One or more validation errors occurred.') =>
  new DomainError('validation', message, errors);

export const notFound = (what: string) => new DomainError('not_found', `${what} was not found.`);

export const forbidden = (message: string) => new DomainError('forbidden', message);

export const conflict = (message: string) => new DomainError('conflict', message);

export const unavailable = (message: string, retryAfterSeconds: number) =>
  new DomainError('unavailable', message, undefined, retryAfterSeconds);

/**
 * Field errors as a plain object whose keys are all own data properties, even `__proto__` or `constructor`
 * (Object.fromEntries defines rather than assigns), so they survive JSON.stringify like any other key.
 */
export const fieldErrorsOf = (entries: Iterable<readonly [string, string[]]>): FieldErrors => Object.fromEntries(entries);

/**
 * Collects field errors while walking a request, so every violation is reported at once. Field paths come from
 * request bodies (`metadata.constructor`, `__proto__`), so they key a Map, never a plain object.
 */
export class FieldErrorCollector {
  private readonly errors = new Map<string, string[]>();

  add(field: string, message: string): void {
    const messages = this.errors.get(field);
    if (messages) messages.push(message);
    else this.errors.set(field, [message]);
  }

  get hasErrors(): boolean {
    return this.errors.size > 0;
  }

  throwIfAny(): void {
    if (this.hasErrors) throw validationError(this.toObject());
  }

  toObject(): FieldErrors {
    return fieldErrorsOf([...this.errors].map(([field, messages]) => [field, [...messages]] as const));
  }
}
