// The few kinds of failure the domain reports; one HTTP filter maps each kind to a status.

export type DomainErrorKind =
  | 'validation' // 400
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unprocessable'; // 422

/** Field path (dotted, with [i] for array items, e.g. `request_parameters[2].name`) to messages. */
export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errors?: FieldErrors,
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

/** Collects field errors while walking a request, so every violation is reported at once. */
export class FieldErrorCollector {
  private readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  get hasErrors(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  throwIfAny(): void {
    if (this.hasErrors) throw validationError(this.errors);
  }

  toObject(): FieldErrors {
    return { ...this.errors };
  }
}
