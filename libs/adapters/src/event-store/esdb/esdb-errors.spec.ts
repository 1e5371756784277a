import {
  AccessDeniedError,
  ANY,
  MaxAppendSizeExceededError,
  NO_STREAM,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  AppendTooLargeError,
  EventStoreAccessDeniedError,
  WrongExpectedRevisionError,
  type ExpectedRevision,
} from '@vault/application';
import { DomainError } from '@vault/domain';
import { isStreamNotFound, toAccessError, toEsdbExpectedRevision, toPortError } from './esdb-errors';

describe('EventStoreDB errors', () => {
  it.each<[ExpectedRevision, unknown]>([
    ['no_stream', NO_STREAM],
    ['any', ANY],
    [0n, 0n],
    [41n, 41n],
  ])('sends expected revision %p as %p', (expected, sent) => {
    expect(toEsdbExpectedRevision(expected)).toBe(sent);
  });

  it.each<[ExpectedRevision, bigint | 'no_stream']>([
    ['no_stream', 0n],
    [0n, 1n],
    [0n, 'no_stream'],
  ])('turns a client WrongExpectedVersionError (expected %p, actual %p) into ours', (expected, current) => {
    const clientError = new WrongExpectedVersionError(undefined, {
      streamName: 'token-1',
      expected: toEsdbExpectedRevision(expected),
      current,
    });
    const error = toPortError(clientError, 'token-1', expected);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ streamId: 'token-1', expected, actual: current });
  });

  it('turns a client MaxAppendSizeExceededError into a too_large DomainError naming the limit', () => {
    const error = toPortError(MaxAppendSizeExceededError.fromMaxAppendSize(1_048_576), 'formula-1', 'no_stream');
    expect(error).toBeInstanceOf(AppendTooLargeError);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      kind: 'too_large',
      streamId: 'formula-1',
      maxBytes: 1_048_576,
      message: 'The change is larger than the event store accepts in one write (1048576 bytes).',
    });
  });

  it('turns a client AccessDeniedError into ours, on appends and on reads, naming what was refused', () => {
    const clientError = new AccessDeniedError();
    const onAppend = toPortError(clientError, 'token-1', 0n);
    expect(onAppend).toBeInstanceOf(EventStoreAccessDeniedError);
    expect(onAppend).toMatchObject({ operation: 'append to token-1', cause: clientError });
    expect(toAccessError(clientError, 'read $all')).toMatchObject({
      message: 'The event store denied access: read $all',
      operation: 'read $all',
    });
  });

  it('leaves an unavailable server to the retry, not to access denied', () => {
    const down = new UnavailableError();
    expect(toAccessError(down, 'read $all')).toBe(down);
  });

  it('passes any other error through unchanged', () => {
    const other = new Error('connection refused');
    expect(toPortError(other, 'token-1', 0n)).toBe(other);
    expect(toPortError(new StreamNotFoundError(undefined, 'token-1'), 'token-1', 0n)).toBeInstanceOf(
      StreamNotFoundError,
    );
  });

  it('recognises a missing stream and nothing else', () => {
    expect(isStreamNotFound(new StreamNotFoundError(undefined, 'token-1'))).toBe(true);
    expect(isStreamNotFound(new Error('stream-not-found'))).toBe(false);
    expect(isStreamNotFound(undefined)).toBe(false);
  });
});
