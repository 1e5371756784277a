import { AllowedHosts } from './allowed-hosts';

describe('AllowedHosts', () => {
  const hosts = AllowedHosts.parse(['api.example.com', 'Files.Example.COM:8443', '127.0.0.1:3000', '[::1]:8080', 'plain.example.com:80']);

  it.each([
    ['https://api.example.com/v1/cards', true],
    ['http://api.example.com/', true],
    ['https://api.example.com:443/', true],
    ['https://API.EXAMPLE.COM/v1', true],
    ['https://api.example.com:8443/', false],
    ['https://api.example.com.evil.io/', false],
    ['https://evil.io/?api.example.com', false],
    ['https://sub.api.example.com/', false],
    ['https://api.example.com./', false],
    ['https://files.example.com:8443/x', true],
    ['https://files.example.com/x', false],
    ['http://127.0.0.1:3000/', true],
    ['http://127.1:3000/', true],
    ['http://127.0.0.1:3001/', false],
    ['http://127.0.0.1/', false],
    ['http://localhost:3000/', false],
    ['http://[::1]:8080/', true],
    ['http://[0:0:0:0:0:0:0:1]:8080/', true],
    ['http://plain.example.com/', true],
    ['https://plain.example.com:80/', true],
    ['https://plain.example.com/', false],
  ])('%s → %p', (url, allowed) => {
    expect(hosts.allows(new URL(url))).toBe(allowed);
  });

  it('allows nothing when empty', () => {
    const none = AllowedHosts.parse([]);
    expect(none.isEmpty).toBe(true);
    expect(none.allows(new URL('http://127.0.0.1/'))).toBe(false);
  });

  it.each([
    ['a URL', 'https://api.example.com'],
    ['a path', 'api.example.com/v1'],
    ['a wildcard', '*.example.com'],
    ['a port out of range', 'api.example.com:70000'],
    ['port 0', 'api.example.com:0'],
    ['credentials', 'user@api.example.com'],
    ['an empty entry', ''],
    ['a bare IPv6 address', '::1'],
  ])('refuses %s as an entry, naming it', (_title, entry) => {
    expect(() => AllowedHosts.parse(['ok.example.com', entry])).toThrow(new RegExp(`Allowed host "${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`));
  });
});
