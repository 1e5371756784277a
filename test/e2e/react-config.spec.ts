// The VAULT_REACTOR_* settings: defaults, and a start-up ConfigError naming the variable for every bad value.
import { ConfigError, loadConfig } from '@vault/nest';

const load = (env: Record<string, string>) => loadConfig({ VAULT_DATA_DIR: '/tmp/unused', ...env });

describe('reactor configuration', () => {
  it('defaults to 10 s, 64 MB, 4 at once and no network', () => {
    expect(load({})).toMatchObject({ reactorTimeoutMs: 10000, reactorMemoryMb: 64, reactorConcurrency: 4, reactorAllowedHosts: [] });
  });

  it('runs reactor children as nobody:nogroup when the API is root, else as the API itself', () => {
    const expected = process.getuid?.() === 0 ? expect.objectContaining({ uid: 65534, gid: 65534 }) : null;
    expect(load({}).reactorUser).toEqual(expected);
  });

  it('reads every variable, allowed hosts trimmed and empty entries dropped', () => {
    expect(
      load({
        VAULT_REACTOR_TIMEOUT_MS: '250',
        VAULT_REACTOR_MEMORY_MB: '8',
        VAULT_REACTOR_CONCURRENCY: '2',
        VAULT_REACTOR_ALLOWED_HOSTS: ' api.example.com , 127.0.0.1:8080,,[::1]:9000 ',
      }),
    ).toMatchObject({ reactorTimeoutMs: 250, reactorMemoryMb: 8, reactorConcurrency: 2, reactorAllowedHosts: ['api.example.com', '127.0.0.1:8080', '[::1]:9000'] });
  });

  it.each([
    ['VAULT_REACTOR_TIMEOUT_MS', '0'],
    ['VAULT_REACTOR_TIMEOUT_MS', '1.5'],
    ['VAULT_REACTOR_TIMEOUT_MS', 'ten'],
    ['VAULT_REACTOR_MEMORY_MB', '7'],
    ['VAULT_REACTOR_CONCURRENCY', '0'],
    ['VAULT_REACTOR_CONCURRENCY', '-1'],
    ['VAULT_REACTOR_ALLOWED_HOSTS', 'https://api.example.com'],
    ['VAULT_REACTOR_ALLOWED_HOSTS', 'api.example.com/path'],
    ['VAULT_REACTOR_ALLOWED_HOSTS', 'api.example.com:70000'],
    ['VAULT_REACTOR_ALLOWED_HOSTS', '*.example.com'],
    ['VAULT_REACTOR_ALLOWED_HOSTS', 'user@api.example.com'],
    ['VAULT_REACTOR_USER', 'no-such-user-on-this-host'],
    ['VAULT_REACTOR_USER', 'root'],
  ])('refuses %s=%s at start-up, naming the variable', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(ConfigError);
    expect(() => load({ [name]: value })).toThrow(name);
  });
});
