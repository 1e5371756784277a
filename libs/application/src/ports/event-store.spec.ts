// The EventStoreDB adapter keeps only events of streams with a vault prefix: a stream whose prefix is missing from the
// list would be written and then never projected, rebuilt or counted in the lag (as reactors' once were).
import { applicationStream, auditStream, formulaStream, proxyStream, reactorStream, tenantStream, tokenStream } from '@vault/domain';
import { VAULT_STREAM_PREFIXES } from './event-store';

describe('VAULT_STREAM_PREFIXES', () => {
  it.each([
    ['tenant', tenantStream('t')],
    ['application', applicationStream('a')],
    ['reactor formula', formulaStream('f')],
    ['token', tokenStream('t', 'x')],
    ['reactor', reactorStream('t', 'r')],
    ['proxy', proxyStream('t', 'p')],
    ['audit', auditStream('t')],
  ])('holds the prefix of every %s stream', (_kind, stream) => {
    expect(VAULT_STREAM_PREFIXES.some((prefix) => stream.startsWith(prefix))).toBe(true);
  });
});
