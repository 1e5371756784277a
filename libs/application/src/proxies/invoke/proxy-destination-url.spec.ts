import { DomainError } from '@vault/domain';
import { destinationUrl } from './proxy-destination-url';

const BASE = 'https://api.example.com/v1/charges?fixed=1';

describe('destinationUrl', () => {
  it.each([
    ['', '', 'https://api.example.com/v1/charges?fixed=1'],
    ['/', 'a=1', 'https://api.example.com/v1/charges?fixed=1&a=1'],
    ['/ch_1/capture', '', 'https://api.example.com/v1/charges/ch_1/capture?fixed=1'],
    ['/a/../ch_1', '', 'https://api.example.com/v1/charges/ch_1?fixed=1'],
    ['/v1.2..3/a%2Fb/..x', '', 'https://api.example.com/v1/charges/v1.2..3/a%2Fb/..x?fixed=1'],
  ])('%s?%s goes to %s', (path, query, expected) => {
    expect(destinationUrl(BASE, path, query).href).toBe(expected);
  });

  it.each(['/..', '/../x', '/a/../../x', '/%2e%2e/x', '/.%2E/x', '/..%2fx', '/..%5Cx', '/a/..%2f..%2fx', '/%252e%252e/x', '/..%255cx', '/..\\x'])(
    'refuses %s, which leaves the destination, naming path',
    (path) => {
      let error: unknown;
      try {
        destinationUrl(BASE, path, '');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).errors).toHaveProperty('path');
    },
  );
});
