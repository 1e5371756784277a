import { isCorsSafelistedRequestHeader } from './cors-safelisted-header';

describe('isCorsSafelistedRequestHeader', () => {
  it.each<[string, string, boolean]>([
    ['accept', 'application/json, text/*;q=0.5', true],
    ['accept', '*/*', true],
    ['accept', 'text/html\tq', true],
    ['accept', 'application/{json}', false],
    ['accept', 'a@b', false],
    ['accept', 'x'.repeat(128), true],
    ['accept', 'x'.repeat(129), false],
    ['accept-language', 'en-GB,en;q=0.9', true],
    ['accept-language', 'de_DE', false],
    ['content-language', 'fr, de', true],
    ['content-language', 'é', false],
    ['content-type', 'text/plain', true],
    ['content-type', 'Text/Plain; charset=utf-8', true],
    ['content-type', '  text/plain  ', true],
    ['content-type', 'text/plain ;charset=utf-8', true],
    ['content-type', 'application/x-www-form-urlencoded', true],
    ['content-type', 'multipart/form-data; boundary=abc', true],
    ['content-type', 'application/json', false],
    ['content-type', 'text/plain+json', false],
    ['content-type', 'text/ plain', false],
    ['content-type', 'text', false],
    ['content-type', '/plain', false],
    ['content-type', 'text/plain; a="b"', false],
    ['content-type', 'text/plain; boundary=a:b', false],
    ['x-api-key', 'S', false],
    ['authorization', 'Bearer t', false],
    ['cookie', 'a=b', false],
    ['range', 'bytes=0-', false],
    ['origin', 'https://example.com', false],
  ])('%s: %s → %p', (name, value, safelisted) => {
    expect(isCorsSafelistedRequestHeader(name, value)).toBe(safelisted);
  });
});
