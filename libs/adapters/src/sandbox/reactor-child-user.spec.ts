import { type AccountSystem, reactorChildUser } from './reactor-child-user';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  '# a comment',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'reactor:x:990:985::/nonexistent:/usr/sbin/nologin',
  'vault:x:1000:1000::/home/vault:/bin/sh',
  '',
].join('\n');
const GROUP = ['root:x:0:', 'nogroup:x:65534:', 'reactors:x:985:', 'vault:x:1000:', ''].join('\n');

const system = (uid: number | undefined, gid = uid, passwd = PASSWD, group = GROUP): AccountSystem => ({
  uid,
  gid,
  passwd: () => passwd,
  group: () => group,
});
const ROOT = system(0);

describe('reactorChildUser, for an API running as root', () => {
  it.each<[string | undefined, { uid: number; gid: number; name: string }]>([
    [undefined, { uid: 65534, gid: 65534, name: 'nobody:nogroup' }],
    ['', { uid: 65534, gid: 65534, name: 'nobody:nogroup' }],
    ['reactor', { uid: 990, gid: 985, name: 'reactor:985' }],
    ['reactor:reactors', { uid: 990, gid: 985, name: 'reactor:reactors' }],
    [' reactor:nogroup ', { uid: 990, gid: 65534, name: 'reactor:nogroup' }],
    ['990', { uid: 990, gid: 985, name: '990:985' }],
    ['4242:4343', { uid: 4242, gid: 4343, name: '4242:4343' }],
    ['4242:reactors', { uid: 4242, gid: 985, name: '4242:reactors' }],
  ])('%p → %p', (setting, user) => {
    expect(reactorChildUser(setting, ROOT)).toEqual(user);
  });

  it.each<[string, string | undefined, AccountSystem, RegExp]>([
    ['the default on a system without nobody', undefined, system(0, 0, PASSWD.replace(/^nobody:.*$/m, '')), /no user "nobody" in \/etc\/passwd; create it or set VAULT_REACTOR_USER/],
    ['the default on a system without nogroup', undefined, system(0, 0, PASSWD, GROUP.replace(/^nogroup:.*$/m, '')), /no group "nogroup" in \/etc\/group/],
    ['an unknown user', 'ghost', ROOT, /no user "ghost" in \/etc\/passwd/],
    ['an unknown group', 'reactor:ghosts', ROOT, /no group "ghosts" in \/etc\/group/],
    ['a bare uid without an entry', '4242', ROOT, /uid 4242 has no entry in \/etc\/passwd to take a group from; give user:group/],
    ['root', 'root', ROOT, /must name an unprivileged user and group, not root/],
    ['uid 0', '0:65534', ROOT, /not root/],
    ['group root', 'reactor:root', ROOT, /not root \(reactor:root is uid 990, gid 0\)/],
    ['three parts', 'a:b:c', ROOT, /must be user or user:group/],
    ['no user', ':nogroup', ROOT, /must be user or user:group/],
    ['an empty group', 'nobody:', ROOT, /must be user or user:group/],
  ])('refuses %s (%p) at once', (_title, setting, accounts, message) => {
    expect(() => reactorChildUser(setting, accounts)).toThrow(message);
  });
});

describe('reactorChildUser, for an API that is not root', () => {
  it('keeps the children as this process: it cannot switch users', () => {
    expect(reactorChildUser(undefined, system(1000))).toBeNull();
  });

  it('accepts a setting that names this process itself', () => {
    expect(reactorChildUser('vault', system(1000))).toBeNull();
    expect(reactorChildUser('1000:1000', system(1000))).toBeNull();
  });

  it.each(['nobody:nogroup', 'reactor', 'vault:reactors'])('refuses %p rather than run the children as itself unasked', (setting) => {
    expect(() => reactorChildUser(setting, system(1000))).toThrow(/only an API running as root can start reactor processes as another user or group/);
  });

  it('has nothing to switch where the platform has no uids', () => {
    expect(reactorChildUser('nobody', system(undefined))).toBeNull();
  });
});
