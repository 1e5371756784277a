// ReactorRuntime on a pool of child processes, each running IsolatedVmReactorRuntime, which the host kills when a run
// outlasts its wall time or its memory: some V8 built-ins (JSON.parse, String#normalize, Intl) swallow isolated-vm's
// termination, and ICU's memory is outside the isolate's heap limit.
import { type ChildProcess, spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import type { CodeCheckOwner, CodeCheckResult, ReactorRequest, ReactorResult, ReactorRunOwner, ReactorRuntime } from '@vault/application';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './isolated-vm-formula-module';
import { CHILD_ENV, CHILD_NICE, childEntry, childProcessRuntimeOptions, NODE_ARGS, residentMb, type ChildProcessReactorRuntimeOptions } from './child-process-options';
import type { FromChild, ToChild } from './reactor-child';
import { CHILD_EXIT_NOT_SWITCHED, runsAs } from './reactor-child-user';
import { TenantFairLimit } from './tenant-fair-limit';

export { CHILD_NICE, CHILD_RECYCLE_ALLOWANCE_MB, CHILD_RSS_ALLOWANCE_MB, type ChildProcessReactorRuntimeOptions } from './child-process-options';

/** Checks given without an owner (the operator's `formulas import`) share one tenant's share of the check queue. */
const OPERATOR = '\u0000operator';
/** Runs given without an owner share one tenant's slots. */
const ANONYMOUS = '\u0000anonymous';
const RSS_POLL_MS = 50;

interface Child {
  readonly process: ChildProcess;
  /** The run under way, if any. */
  run?: Run;
  /** It answered `ready`: a replacement is started when it dies. */
  ready: boolean;
  /** Runs it has served. */
  runs: number;
  dead: boolean;
  exited: Promise<void>;
}

/** What a child answers: a run's result, a check's result, or the runtime's own failure. */
type Outcome = ReactorResult | CodeCheckResult | Error;

interface Run {
  id: number;
  settle(result: Outcome): void;
}

/** Formula code checks share the slots as one more tenant would: at most half of them. */
const CODE_CHECKS = '\u0000formula-code-checks';

/**
 * Same contract, options and code API as IsolatedVmReactorRuntime (it runs inside each child), plus:
 * - `concurrency` children, started when first needed and kept warm; each runs one invocation at a time, over IPC;
 * - the queue and `busy` answers stay here, in the parent;
 * - at `timeoutMs` + `killGraceMs` the child is SIGKILLed and the run fails as out of time; when its resident memory
 *   passes `maxChildRssMb` (polled every 50 ms) it is SIGKILLed and the run fails as out of memory; a child that dies
 *   fails its run; each is replaced by a new child;
 * - `close()` kills every child, so it returns at once whatever the runs do.
 * A child has no environment but TZ and the locale, and its stdout and stderr go nowhere: nothing of a run is written.
 * Started by root, a child loads its code, then becomes `user` (nobody:nogroup by default) before it answers `ready`,
 * and the parent checks that it did: an escape from isolated-vm would find neither the owner-only data dir nor the
 * API's /proc/<pid>/environ readable. The parent, root, still renices, kills and reads /proc/<pid>/status of it.
 */
export class ChildProcessReactorRuntime implements ReactorRuntime {
  private readonly options: ChildProcessReactorRuntimeOptions;
  private readonly limit: TenantFairLimit;
  /** Checks wait here, per tenant and in turn, for one of the checks' share of the slots (`limit`'s CODE_CHECKS). */
  private readonly checks: TenantFairLimit;
  private readonly children = new Set<Child>();
  /** Children killed and not yet exited: still processes, so `close()` waits for them and replacements start after. */
  private readonly exiting = new Set<Child>();
  private readonly idle: Child[] = [];
  /** Replacements still starting that no run has claimed: a run waits for one rather than spawning yet another child. */
  private readonly spares: Promise<Child>[] = [];
  private nextRunId = 0;
  private closed = false;
  private draining = false;

  constructor(options: Partial<ChildProcessReactorRuntimeOptions> = {}) {
    this.options = childProcessRuntimeOptions(options);
    // A tenant may hold at most half the slots (rounded up) and half the queue; the queue serves tenants in turn.
    this.limit = new TenantFairLimit({ max: this.options.concurrency, maxWaiting: this.options.queueSize });
    // Checks get at most the slots CODE_CHECKS may hold in `limit`, so they never wait in its queue for long, nor fill
    // it. Their own queue is fair between tenants: one tenant's burst of formula writes waits in its half of it, and
    // another tenant's checks are served in turn rather than refused.
    const checkSlots = Math.ceil(this.options.concurrency / 2);
    this.checks = new TenantFairLimit({ max: checkSlots, maxPerTenant: checkSlots, maxWaiting: this.options.checkQueueSize });
  }

  run(code: string, request: ReactorRequest, owner?: ReactorRunOwner): Promise<ReactorResult> {
    if (this.closed || this.draining) return Promise.resolve(this.busy('The reactor runtime is shutting down.'));
    const queued = this.limit.tryRun(
      owner?.tenantId ?? ANONYMOUS,
      async () => {
        const { timeoutMs } = this.options;
        const result = await this.runInChild((id) => ({ type: 'run', id, code, request }), timeoutMs, {
          timedOut: failed(`The reactor did not finish within ${timeoutMs} ms.`),
          outOfMemory: failed(`The reactor used more than the ${this.options.memoryLimitMb} MB of memory it may use.`),
        });
        return result as ReactorResult;
      },
      () => this.busy('The reactor runtime is shutting down.'),
    );
    return queued ?? Promise.resolve(this.busy('Too many reactor invocations are waiting; try again later.'));
  }

  /**
   * Checks formula code (IsolatedVmCodeChecker, in a child) under `limits`: its top level may outlast them where V8
   * does not stop it, so the child is SIGKILLed at `limits.timeoutMs` + `killGraceMs` and the check fails as the
   * checker's own timeout does. Checks take the slots as one more tenant of the runs would: at most half of them.
   * They wait for those in a queue of their own (`checkQueueSize`), served tenant by tenant in turn, of which one tenant
   * (`owner`; none: the operator) may fill half. `busy` past that, or when the runtime is shutting down.
   */
  check(code: string, limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS, owner?: CodeCheckOwner): Promise<CodeCheckResult | ReactorResult> {
    if (this.closed || this.draining) return Promise.resolve(this.busy('The reactor runtime is shutting down.'));
    const shuttingDown = () => this.busy('The reactor runtime is shutting down.');
    const queued = this.checks.tryRun(
      owner?.tenantId ?? OPERATOR,
      () =>
        this.limit.tryRun(
          CODE_CHECKS,
          () =>
            this.runInChild((id) => ({ type: 'check', id, code, limits }), limits.timeoutMs, {
              timedOut: { ok: false, reason: topLevelTimedOut(limits.timeoutMs) },
              outOfMemory: { ok: false, reason: `The code used more than the ${limits.memoryLimitMb} MB of memory it may use.` },
            }),
          shuttingDown,
        ) ?? Promise.resolve(this.closed || this.draining ? shuttingDown() : this.busy('Too many reactor invocations are waiting; try again later.')),
      shuttingDown,
    );
    return queued ?? Promise.resolve(this.busy("Too many of this tenant's formula code checks are waiting; try again later."));
  }

  /**
   * Starts no more runs: those waiting and every later one answer `busy` at once; those under way go on, each ending
   * within `timeoutMs` + `killGraceMs` (killed past it). The first step of a shutdown; `close()` ends the rest.
   */
  drain(): void {
    this.draining = true;
    this.checks.stop();
    this.limit.stop();
  }

  /** Kills every child (runs under way answer `busy`), answers `busy` to every later run, and resolves once all exited. */
  async close(): Promise<void> {
    this.closed = true;
    this.checks.stop();
    const children = [...this.children];
    for (const child of children) {
      // Unreferenced, a child's exit would not keep the event loop alive: a process with nothing else to do (the CLI
      // after its command) would end at once, with status 0, before this resolves and it exits with its own status.
      child.process.ref();
      this.kill(child, this.busy('The reactor runtime is shutting down.'));
    }
    // Those killed before (a timed-out run's) are waited for as well, referenced for the same reason.
    for (const child of this.exiting) child.process.ref();
    await Promise.all([...children, ...this.exiting].map((child) => child.exited));
  }

  private async runInChild(
    message: (id: number) => ToChild,
    timeoutMs: number,
    answers: { timedOut: ReactorResult | CodeCheckResult; outOfMemory: ReactorResult | CodeCheckResult },
  ): Promise<ReactorResult | CodeCheckResult> {
    // A run that waited in the queue while the runtime closed starts no child.
    if (this.closed) return this.busy('The reactor runtime is shutting down.');
    let child: Child;
    try {
      child = await this.takeChild();
    } catch (error) {
      if (this.closed) return this.busy('The reactor runtime is shutting down.');
      throw error;
    }
    if (this.closed) {
      this.kill(child);
      return this.busy('The reactor runtime is shutting down.');
    }
    const { killGraceMs, maxChildRssMb } = this.options;
    const id = ++this.nextRunId;
    let polling = false;
    const result = await new Promise<Outcome>((settle) => {
      child.run = { id, settle };
      child.process.send(message(id), (error) => {
        if (error) this.kill(child, failed('The reactor stopped unexpectedly: its process ended.'));
      });
      const deadline = setTimeout(() => this.kill(child, answers.timedOut), timeoutMs + killGraceMs);
      const poll = setInterval(() => {
        if (polling) return;
        polling = true;
        void residentMb(child.process.pid).then((mb) => {
          polling = false;
          if (mb !== null && mb > maxChildRssMb && child.run?.id === id) {
            this.kill(child, answers.outOfMemory);
          }
        });
      }, RSS_POLL_MS);
      child.run.settle = (outcome) => {
        clearTimeout(deadline);
        clearInterval(poll);
        child.run = undefined;
        settle(outcome);
      };
    });
    if (!child.dead) {
      // A child left holding much more than it starts with after a run (V8 and ICU keep some of what they took), or
      // that served its share of runs, is replaced before it serves another run: one run's residue must not get the
      // next one (maybe another tenant's) killed for memory.
      child.runs++;
      const mb = await residentMb(child.process.pid);
      const { recycleRssMb, maxRunsPerChild } = this.options;
      if (this.closed || (mb !== null && mb > recycleRssMb) || child.runs >= maxRunsPerChild) this.kill(child);
      else this.idle.push(child);
    }
    if (result instanceof Error) throw result;
    return result;
  }

  /** An idle child, else a replacement being started, else a new one: never more than `concurrency` children. */
  private async takeChild(): Promise<Child> {
    const idle = this.idle.pop();
    if (idle) return idle;
    const spare = this.spares.shift();
    if (spare) {
      try {
        return await spare;
      } catch {
        // It did not start: this run starts one itself (and answers that failure).
      }
    }
    if (this.closed) throw new Error('The reactor runtime is closed.');
    return this.start();
  }

  /** Spawns a child and resolves once it is ready for runs. */
  private start(): Promise<Child> {
    const env: Record<string, string> = {};
    for (const name of CHILD_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
    const { entry, preload } = childEntry();
    const { user } = this.options;
    const spawned = spawn(process.execPath, [...NODE_ARGS, ...(preload ? ['-r', preload] : []), entry], {
      env,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
      // A directory every user may enter, and none of the service's own.
      cwd: '/',
    });
    if (spawned.pid !== undefined) {
      try {
        setPriority(spawned.pid, CHILD_NICE);
      } catch {
        // EACCES/EPERM where the platform refuses: the child runs at the parent's priority.
      }
    }
    const child: Child = {
      process: spawned,
      ready: false,
      runs: 0,
      dead: false,
      exited: new Promise((resolve) => spawned.once('exit', () => resolve())),
    };
    this.children.add(child);
    // An idle pool must not keep the service's process alive; a run keeps it alive by its own timers.
    spawned.unref();
    (spawned.channel as { unref?: () => void } | null | undefined)?.unref?.();
    const {
      killGraceMs: _grace,
      maxChildRssMb: _rss,
      startTimeoutMs,
      concurrency: _c,
      queueSize: _q,
      recycleRssMb: _recycle,
      maxRunsPerChild: _runs,
      checkQueueSize: _checks,
      user: _user,
      ...options
    } = this.options;
    return new Promise<Child>((resolve, reject) => {
      let why = `no answer within ${startTimeoutMs} ms`;
      const timer = setTimeout(() => this.kill(child), startTimeoutMs);
      spawned.on('message', (message: FromChild) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          // The child's own check of its ids is what keeps it from serving runs as root; this one stops a child whose
          // check went wrong (null: no /proc here, or it is gone, which its exit will tell).
          if (user && runsAs(spawned.pid ?? -1, user) === false) {
            why = `it still ran with other ids than ${user.name}'s`;
            this.kill(child);
            return;
          }
          child.ready = true;
          resolve(child);
        } else if (child.run && message.id === child.run.id) {
          child.run.settle(
            message.type === 'result' || message.type === 'checked' ? message.result : new Error('The reactor runtime failed in its child process.'),
          );
        }
      });
      const ended = () => {
        clearTimeout(timer);
        this.died(child, failed('The reactor stopped unexpectedly: its process ended.'));
        reject(new Error(`A reactor child process did not start: ${why}.`));
      };
      spawned.on('error', () => {
        why = 'it could not be spawned';
        // Without a pid there will be no exit event.
        if (spawned.pid === undefined) ended();
      });
      spawned.once('exit', (code, signal) => {
        if (why.startsWith('no answer') && !child.dead) {
          why = code === CHILD_EXIT_NOT_SWITCHED && user ? `it could not become ${user.name} (uid ${user.uid}, gid ${user.gid})` : `it exited (${signal ?? code})`;
        }
        ended();
      });
      const init: ToChild = { type: 'init', options, user: user && { uid: user.uid, gid: user.gid } };
      spawned.send(init, () => undefined);
    });
  }

  /** SIGKILLs a child; its run, if any, is answered `outcome` (busy when none is given). */
  private kill(child: Child, outcome?: ReactorResult | CodeCheckResult): void {
    if (!child.dead) {
      child.dead = true;
      child.process.kill('SIGKILL');
      this.exiting.add(child);
      void child.exited.then(() => this.exiting.delete(child));
    }
    this.died(child, outcome ?? this.busy('The reactor runtime is shutting down.'));
  }

  private died(child: Child, outcome: ReactorResult | CodeCheckResult): void {
    child.dead = true;
    child.run?.settle(outcome);
    const index = this.idle.indexOf(child);
    if (index >= 0) this.idle.splice(index, 1);
    if (!this.children.delete(child) || this.closed || this.draining || !child.ready) return;
    // Keep the pool warm: a replacement starts as soon as this child has exited (SIGKILL takes milliseconds; until
    // then it is still one of the processes `concurrency` bounds) rather than on the next run. Its failure to start
    // only means the next run starts one itself (and answers the failure).
    const spare = child.exited.then(() => {
      if (this.closed || this.draining) throw new Error('The reactor runtime is closed.');
      return this.start();
    });
    this.spares.push(spare);
    const unclaimed = (): boolean => {
      const index = this.spares.indexOf(spare);
      if (index >= 0) this.spares.splice(index, 1);
      return index >= 0;
    };
    spare.then(
      (fresh) => {
        if (!unclaimed()) return;
        if (this.closed || this.draining) this.kill(fresh);
        else this.idle.push(fresh);
      },
      () => void unclaimed(),
    );
  }

  private busy(message: string): ReactorResult {
    // A run ends within the timeout and its grace, so a slot frees up within it.
    const seconds = Math.max(1, Math.ceil((this.options.timeoutMs + this.options.killGraceMs) / 1000));
    return { ok: false, kind: 'busy', message, retryAfterSeconds: seconds };
  }
}

const failed = (message: string): ReactorResult => ({ ok: false, kind: 'failed', message });

/** The in-child checker's own answer when the top level outlasts its time (isolated-vm-formula-module). */
const topLevelTimedOut = (timeoutMs: number): string => `The code's top level did not finish within ${timeoutMs} ms.`;
