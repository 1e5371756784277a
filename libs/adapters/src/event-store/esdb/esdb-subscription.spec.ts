// The subscription over the client's real Subscription stream (its own code turns gRPC responses into events and
// caught-up signals); only the gRPC call is replaced, by a stream of response-shaped messages. No server is faked:
// what is under test is our loop's bookkeeping around the client.
import { PassThrough } from 'node:stream';
import type { EventStoreDBClient } from '@eventstore/db-client';
import type { LogPosition } from '@vault/application';
import { subscribeToVault } from './esdb-subscription';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Subscription } = require('@eventstore/db-client/dist/streams/utils/Subscription.js');

const response = (kind: 'event' | 'caughtUp' | 'checkpoint', n = 0) => ({
  hasEvent: () => kind === 'event',
  getEvent: () => n,
  hasCaughtUp: () => kind === 'caughtUp',
  hasCheckpoint: () => kind === 'checkpoint',
  getCheckpoint: () => ({ getCommitPosition: () => String(n * 100), getPreparePosition: () => String(n * 100) }),
  hasConfirmation: () => false,
  hasFellBehind: () => false,
});

const resolved = (n: number) => ({
  event: {
    id: String(n),
    streamId: `token-t_${n}`,
    type: 'TokenCreated',
    revision: 0n,
    position: { commit: BigInt(n * 100), prepare: BigInt(n * 100) },
    isJson: true,
    data: {},
    metadata: { timestamp: new Date().toISOString() },
  },
});

const clientOver = (grpc: PassThrough) =>
  ({
    subscribeToAll: (options: { filter: { checkpointReached: unknown } }) =>
      new Subscription(async () => Object.assign(grpc, { cancel: () => grpc.end() }), resolved, {}, options.filter.checkpointReached),
  }) as unknown as EventStoreDBClient;

describe('subscribeToVault', () => {
  it.each([
    ["the server's caught-up message", 'caughtUp' as const],
    ['a filter checkpoint at the end of the log (servers before 23.10)', 'checkpoint' as const],
  ])('announces caught-up only once every earlier event was handled: %s', async (_title, signal) => {
    const grpc = new PassThrough({ objectMode: true });
    const count = 300;
    const end: LogPosition = { commit: BigInt(count * 100), prepare: BigInt(count * 100) };
    let handled = 0;
    const handledAtCaughtUp = await new Promise<number>((resolve, reject) => {
      const subscription = subscribeToVault(
        clientOver(grpc),
        {
          after: null,
          onEvents: async (events) => {
            await new Promise((r) => setTimeout(r, 20));
            handled += events.length;
          },
          onCaughtUp: () => {
            const seen = handled;
            void subscription.close().then(() => resolve(seen));
          },
          onError: reject,
        },
        async () => end,
      );
      for (let i = 1; i <= count; i++) grpc.write(response('event', i));
      grpc.write(response(signal, count));
    });
    expect(handledAtCaughtUp).toBe(count);
  });
});
