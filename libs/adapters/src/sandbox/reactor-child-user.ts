// Who reactor child processes run as (VAULT_REACTOR_USER): children of an API running as root become an unprivileged
// user, so that code escaping isolated-vm reaches neither the data dir nor the API's environment (/proc/<pid>/environ).
import { readFileSync } from 'node:fs';

export const REACTOR_USER_VARIABLE = 'VAULT_REACTOR_USER';
/** Debian's and Ubuntu's unprivileged user and group (65534); VAULT_REACTOR_USER names others. */
export const DEFAULT_REACTOR_USER = 'nobody:nogroup';

export interface ReactorChildUser {
  uid: number;
  gid: number;
  /** `user:group` as resolved, for messages. */
  name: string;
}

/** What the choice depends on: this process's ids and the account databases. */
export interface AccountSystem {
  /** undefined where the platform has no uids (Windows). */
  uid: number | undefined;
  gid: number | undefined;
  passwd(): string;
  group(): string;
}

export const hostAccounts: AccountSystem = {
  uid: process.getuid?.(),
  gid: process.getgid?.(),
  passwd: () => readFileSync('/etc/passwd', 'utf8'),
  group: () => readFileSync('/etc/group', 'utf8'),
};

export class ReactorUserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReactorUserError';
  }
}

/**
 * The user and group reactor children become, or null for them to stay this process's own. `setting` is `user` (with
 * that user's primary group) or `user:group`, each a name or a numeric id; unset or empty: nobody:nogroup. Only root
 * can switch users, so a process that is not root gets null; asked for another user or group than its own, it fails
 * rather than quietly keep the children as itself. Root (uid or gid 0) is refused: it would undo the separation.
 */
export function reactorChildUser(setting: string | undefined, system: AccountSystem = hostAccounts): ReactorChildUser | null {
  const configured = setting !== undefined && setting.trim() !== '';
  if (system.uid === undefined) return null;
  if (system.uid !== 0) {
    if (configured) {
      const user = resolve(setting, system);
      if (user.uid !== system.uid || user.gid !== system.gid) {
        throw new ReactorUserError(
          `${REACTOR_USER_VARIABLE} is ${user.name}, but only an API running as root can start reactor processes as another user or group (this one runs as uid ${system.uid}, gid ${system.gid}); unset it or run the API as root.`,
        );
      }
    }
    return null;
  }
  const user = resolve(configured ? setting : DEFAULT_REACTOR_USER, system);
  if (user.uid === 0 || user.gid === 0) {
    throw new ReactorUserError(`${REACTOR_USER_VARIABLE} must name an unprivileged user and group, not root (${user.name} is uid ${user.uid}, gid ${user.gid}).`);
  }
  return user;
}

const ID = /^[0-9]{1,10}$/;

const resolve = (setting: string, system: AccountSystem): ReactorChildUser => {
  const parts = setting.trim().split(':');
  const [userPart, groupPart] = parts;
  if (parts.length > 2 || userPart === '' || groupPart === '') {
    throw new ReactorUserError(`${REACTOR_USER_VARIABLE} must be user or user:group (names or numeric ids), e.g. ${DEFAULT_REACTOR_USER}.`);
  }
  const passwd = entries(system.passwd());
  const account = passwd.find((fields) => fields[0] === userPart) ?? (ID.test(userPart) ? passwd.find((fields) => fields[2] === userPart) : undefined);
  const uid = account ? Number(account[2]) : ID.test(userPart) ? Number(userPart) : undefined;
  if (uid === undefined) throw new ReactorUserError(missing('user', userPart, '/etc/passwd'));
  let gid: number | undefined;
  if (groupPart === undefined) {
    gid = account ? Number(account[3]) : undefined;
    if (gid === undefined) throw new ReactorUserError(`${REACTOR_USER_VARIABLE}: uid ${uid} has no entry in /etc/passwd to take a group from; give user:group.`);
  } else {
    const group = entries(system.group()).find((fields) => fields[0] === groupPart);
    gid = group ? Number(group[2]) : ID.test(groupPart) ? Number(groupPart) : undefined;
    if (gid === undefined) throw new ReactorUserError(missing('group', groupPart, '/etc/group'));
  }
  if (!Number.isSafeInteger(uid) || !Number.isSafeInteger(gid)) {
    throw new ReactorUserError(`${REACTOR_USER_VARIABLE}: ${setting.trim()} does not resolve to numeric ids.`);
  }
  return { uid, gid, name: `${userPart}:${groupPart ?? gid}` };
};

const missing = (kind: 'user' | 'group', name: string, file: string): string =>
  `Reactor processes run as an unprivileged user when the API runs as root, but there is no ${kind} "${name}" in ${file}; ` +
  `create it or set ${REACTOR_USER_VARIABLE} to user[:group] of an unprivileged account.`;

/** The colon-separated fields of each line of an account database (comments and blank lines left out). */
const entries = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));

/** Exit status of a child that could not become its user: it never serves a run as its parent's user. */
export const CHILD_EXIT_NOT_SWITCHED = 78;

/**
 * Makes this process `user` for good: no supplementary group, then the group, then the user (a change from root that
 * also clears every capability, and leaves the process undumpable, so that other processes of that user cannot trace
 * it). False when a step fails, or when root can be had back.
 */
export function becomeUser(user: { uid: number; gid: number }): boolean {
  if (!process.setgroups || !process.setgid || !process.setuid) return false;
  try {
    process.setgroups([]);
    process.setgid(user.gid);
    process.setuid(user.uid);
  } catch {
    return false;
  }
  try {
    process.setuid(0);
    return false;
  } catch {
    // As it must: an unprivileged user cannot become root again.
  }
  const ids = [process.getuid?.(), process.geteuid?.(), process.getgid?.(), process.getegid?.()];
  // Node.js lists the effective group among the supplementary ones.
  const groups = process.getgroups?.() ?? [];
  return String(ids) === String([user.uid, user.uid, user.gid, user.gid]) && groups.every((gid) => gid === user.gid);
}

/**
 * Whether process `pid` runs as `user` alone (real, effective, saved and file-system ids; no supplementary group), read
 * from /proc; null where that cannot be read (no /proc, or the process is gone).
 */
export function runsAs(pid: number, user: { uid: number; gid: number }): boolean | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const ids = (name: string): string[] => new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(status)?.[1].trim().split(/\s+/).filter(Boolean) ?? [];
  const all = (values: string[], id: number) => values.length === 4 && values.every((value) => Number(value) === id);
  return all(ids('Uid'), user.uid) && all(ids('Gid'), user.gid) && ids('Groups').length === 0;
}
