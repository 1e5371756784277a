// Entry of ChildProcessReactorRuntime's child processes: runs the invocations its parent sends, one at a time, each in
// a fresh isolate (IsolatedVmReactorRuntime), and answers them over the IPC channel.
import type { CodeCheckResult, ReactorRequest, ReactorResult } from '@vault/application';
import { IsolatedVmCodeChecker } from './isolated-vm-code-checker';
import type { SandboxLimits } from './isolated-vm-formula-module';
import { IsolatedVmReactorRuntime, type ReactorRuntimeOptions } from './isolated-vm-reactor-runtime';
import { becomeUser, CHILD_EXIT_NOT_SWITCHED } from './reactor-child-user';

/** Parent to child: the options and the user to become (null: stay) once, then one run at a time. */
export type ToChild =
  | { type: 'init'; options: Omit<ReactorRuntimeOptions, 'concurrency' | 'queueSize'>; user: { uid: number; gid: number } | null }
  | { type: 'run'; id: number; code: string; request: ReactorRequest }
  | { type: 'check'; id: number; code: string; limits: SandboxLimits };

/** Child to parent: `broken` when the runtime itself failed (no detail: it could quote the run's data). */
export type FromChild =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: ReactorResult }
  | { type: 'checked'; id: number; result: CodeCheckResult }
  | { type: 'broken'; id: number };

const send = (message: FromChild): void => {
  process.send?.(message);
};

// Only ever started by ChildProcessReactorRuntime, with an IPC channel; without a parent there is nothing to do.
if (!process.send) process.exit(64);

let runtime: IsolatedVmReactorRuntime | undefined;

process.on('message', (message: ToChild) => {
  if (message.type === 'init') {
    // Everything this process runs is loaded by now (its imports above), wherever it lies, even under a directory only
    // root may enter; what a run may reach is only what `user` may.
    if (!runtime && message.user && !becomeUser(message.user)) process.exit(CHILD_EXIT_NOT_SWITCHED);
    runtime ??= new IsolatedVmReactorRuntime({ ...message.options, concurrency: 1, queueSize: 0 });
    send({ type: 'ready' });
  } else if (message.type === 'run' && runtime) {
    const { id } = message;
    runtime.run(message.code, message.request).then(
      (result) => send({ type: 'result', id, result }),
      () => send({ type: 'broken', id }),
    );
  } else if (message.type === 'check' && runtime) {
    const { id } = message;
    new IsolatedVmCodeChecker({ ...message.limits, maxConcurrent: 1 }).check(message.code).then(
      (result) => send({ type: 'checked', id, result }),
      () => send({ type: 'broken', id }),
    );
  }
});

// The parent went away (exit, crash, or it closed the channel): so does every run here.
process.on('disconnect', () => process.exit(0));
