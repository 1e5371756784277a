// The options of ChildProcessReactorRuntime and what it reads of its children: where a child's script is, how much
// memory a child holds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reactorRuntimeOptions, type ReactorRuntimeOptions } from './isolated-vm-reactor-runtime';
import { REACTOR_USER_VARIABLE, reactorChildUser, type ReactorChildUser } from './reactor-child-user';

export interface ChildProcessReactorRuntimeOptions extends ReactorRuntimeOptions {
  /**
   * Time past `timeoutMs` the child has to answer on its own (its isolate's limit answers at `timeoutMs`) before it is
   * killed and the run answered as out of time.
   */
  killGraceMs: number;
  /** Resident memory of a child, in MB, past which it is killed and its run answered as out of memory. */
  maxChildRssMb: number;
  /** Time a new child has to load and answer that it is ready. */
  startTimeoutMs: number;
  /**
   * Resident memory of a child, in MB, past which it is replaced after a run ends, before it serves another: what V8
   * and ICU keep of one run must not count against the next one's `maxChildRssMb`.
   */
  recycleRssMb: number;
  /** Runs a child serves before it is replaced. */
  maxRunsPerChild: number;
  /**
   * Formula code checks waiting for their turn, over all tenants; one tenant may have at most half of them waiting,
   * and one more of its checks is answered `busy`.
   */
  checkQueueSize: number;
  /**
   * The user and group children run as; null: this process's own. By default from VAULT_REACTOR_USER when this process
   * runs as root (nobody:nogroup when unset), else null (reactor-child-user.ts).
   */
  user: ReactorChildUser | null;
}

/**
 * What a child holds besides its run's isolate (up to `memoryLimitMb`): Node.js, isolated-vm and our code (~60 MB
 * built, ~95 MB from the sources under Jest), the isolate's own overhead, fetch requests and answers copied out of it.
 */
export const CHILD_RSS_ALLOWANCE_MB = 192;

const DEFAULT_KILL_GRACE_MS = 1000;
/** A child keeps up to this much over its run's heap between runs (Node.js and isolated-vm take ~60 MB built). */
export const CHILD_RECYCLE_ALLOWANCE_MB = 64;
const DEFAULT_MAX_RUNS_PER_CHILD = 200;
/** 32 checks of one tenant may wait (formula writes of a deploy script sent at once), 64 of all tenants. */
const DEFAULT_CHECK_QUEUE_SIZE = 64;
/** Nice value of the children: the API's own requests win the cores over reactor runs. */
export const CHILD_NICE = 10;
/** Spawned with the parent's runtime flags left out; isolated-vm needs the startup snapshot off. */
export const NODE_ARGS = ['--no-node-snapshot'];
/** The only parts of the environment a child gets: no key, URL or credential of the service's reaches it. */
export const CHILD_ENV = ['TZ', 'LANG', 'LC_ALL'];

/** The options given, each defaulted and checked here, at once, rather than in each child. */
export const childProcessRuntimeOptions = (options: Partial<ChildProcessReactorRuntimeOptions>): ChildProcessReactorRuntimeOptions => {
  const checked = reactorRuntimeOptions(options);
  const resolved: ChildProcessReactorRuntimeOptions = {
    ...checked,
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxChildRssMb: options.maxChildRssMb ?? checked.memoryLimitMb + CHILD_RSS_ALLOWANCE_MB,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    recycleRssMb: options.recycleRssMb ?? checked.memoryLimitMb + CHILD_RECYCLE_ALLOWANCE_MB,
    maxRunsPerChild: options.maxRunsPerChild ?? DEFAULT_MAX_RUNS_PER_CHILD,
    checkQueueSize: options.checkQueueSize ?? DEFAULT_CHECK_QUEUE_SIZE,
    // Resolved here, so that a missing account stops the service's start-up rather than its first run.
    user: options.user !== undefined ? options.user : reactorChildUser(process.env[REACTOR_USER_VARIABLE]),
  };
  for (const name of ['killGraceMs', 'maxChildRssMb', 'startTimeoutMs', 'recycleRssMb', 'maxRunsPerChild', 'checkQueueSize'] as const) {
    const value = resolved[name];
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  return resolved;
};

/**
 * The child's script next to this module: the built `reactor-child.js` in dist/, or, when this module runs from the
 * TypeScript sources (Jest), `reactor-child.ts` with a preload that compiles TypeScript.
 */
export const childEntry = (): { entry: string; preload?: string } =>
  __filename.endsWith('.ts')
    ? { entry: join(__dirname, 'reactor-child.ts'), preload: join(__dirname, 'reactor-child-from-sources.cjs') }
    : { entry: join(__dirname, 'reactor-child.js') };

/** A process's resident memory in MB from /proc (Linux), or null where there is none or the process is gone. */
export const residentMb = async (pid: number | undefined): Promise<number | null> => {
  if (pid === undefined) return null;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
};
