import type { AllStreamResolvedEvent } from '@eventstore/db-client';
import { VAULT_STREAM_PREFIXES } from '@vault/application';
import { isVaultEvent, toRecordedEvent } from './esdb-recorded-event';

const metadata = {
  tenant_id: 'c0ffee00-0000-4000-8000-000000000001',
  actor: { type: 'application', id: 'app-1' },
  timestamp: '2024-05-01T10:00:00.000Z',
  correlation_id: 'corr-1',
};

const anEvent = (overrides: { streamId?: string; type?: string; isJson?: boolean } = {}): AllStreamResolvedEvent => ({
  event: {
    streamId: 'token-1',
    id: 'e1',
    isJson: true,
    revision: 3n,
    type: 'TokenCreated',
    created: new Date(0),
    data: { n: 1 },
    metadata,
    position: { commit: 500n, prepare: 500n },
    ...overrides,
  } as AllStreamResolvedEvent['event'],
  commitPosition: 500n,
});

describe('EventStoreDB events as recorded events', () => {
  it('maps a JSON event with its revision, position, data and metadata as written', () => {
    expect(toRecordedEvent(anEvent(), VAULT_STREAM_PREFIXES)).toEqual({
      streamId: 'token-1',
      revision: 3n,
      position: { commit: 500n, prepare: 500n },
      type: 'TokenCreated',
      data: { n: 1 },
      metadata,
    });
  });

  it.each([
    ['a system stream', { streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' }],
    ['a link in a projection stream', { streamId: '$ce-token', type: '$>' }],
    ['stream metadata', { streamId: '$$token-1', type: '$metadata' }],
    ['a stream of another application', { streamId: 'orders-1' }],
    ['a $-typed record inside a vault stream', { type: '$streamDeleted' }],
  ])('skips %s', (_, overrides) => {
    expect(toRecordedEvent(anEvent(overrides), VAULT_STREAM_PREFIXES)).toBeNull();
  });

  it('keeps any stream when no prefixes are given (stream reads)', () => {
    expect(toRecordedEvent(anEvent({ streamId: 'orders-1' }))?.streamId).toBe('orders-1');
  });

  it('skips an unresolved link (no event)', () => {
    expect(toRecordedEvent({ commitPosition: 1n })).toBeNull();
  });

  it('refuses a binary event in a vault stream', () => {
    expect(() => toRecordedEvent(anEvent({ isJson: false }), VAULT_STREAM_PREFIXES)).toThrow('is not JSON');
  });

  it.each([
    ['token-1', 'TokenCreated', true],
    ['tenant-7', 'TenantCreated', true],
    ['application-2', 'ApplicationCreated', true],
    ['formula-3', 'ReactorFormulaCreated', true],
    ['reactor-t_4', 'ReactorCreated', true],
    ['$ce-token', '$>', false],
    ['token-1', '$streamDeleted', false],
    ['orders-1', 'OrderPlaced', false],
  ])('counts %s / %s as a vault event for the head position: %p', (streamId, type, expected) => {
    expect(isVaultEvent(anEvent({ streamId, type }), VAULT_STREAM_PREFIXES)).toBe(expected);
  });
});
