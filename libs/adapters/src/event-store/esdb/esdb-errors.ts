// Concurrency and not-found errors of the EventStoreDB client, in the port's terms.
import {
  ANY,
  ErrorType,
  NO_STREAM,
  type ExpectedRevision as EsdbExpectedRevision,
} from '@eventstore/db-client';
import {
  AppendTooLargeError,
  EventStoreAccessDeniedError,
  WrongExpectedRevisionError,
  type ExpectedRevision,
} from '@vault/application';

export const toEsdbExpectedRevision = (expected: ExpectedRevision): EsdbExpectedRevision => {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return expected;
};

/** Client errors are matched by their `type` tag, which survives two copies of the package; `instanceof` does not. */
const hasType = (error: unknown, type: ErrorType): boolean =>
  typeof error === 'object' && error !== null && (error as { type?: unknown }).type === type;

export const isStreamNotFound = (error: unknown): boolean => hasType(error, ErrorType.STREAM_NOT_FOUND);

/**
 * Our error for a client `AccessDeniedError` (the client makes one of a wrong password too: gRPC UNAUTHENTICATED);
 * anything else comes back unchanged. `operation` says what was refused, e.g. `read $all`.
 */
export const toAccessError = (error: unknown, operation: string): unknown =>
  hasType(error, ErrorType.ACCESS_DENIED) ? new EventStoreAccessDeniedError(operation, { cause: error }) : error;

/** Our error for a client `WrongExpectedVersionError`, `MaxAppendSizeExceededError` or `AccessDeniedError`; anything else comes back unchanged. */
export const toPortError = (error: unknown, streamId: string, expected: ExpectedRevision): unknown => {
  if (hasType(error, ErrorType.ACCESS_DENIED)) return toAccessError(error, `append to ${streamId}`);
  if (hasType(error, ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED)) {
    const max = (error as { maxAppendSize?: unknown }).maxAppendSize;
    return new AppendTooLargeError(streamId, typeof max === 'number' && Number.isFinite(max) ? max : null);
  }
  if (!hasType(error, ErrorType.WRONG_EXPECTED_VERSION)) return error;
  const actual = (error as { actualVersion?: unknown }).actualVersion;
  return new WrongExpectedRevisionError(streamId, expected, typeof actual === 'bigint' ? actual : 'no_stream');
};
