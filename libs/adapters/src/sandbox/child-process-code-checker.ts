// FormulaCodeChecker on ChildProcessReactorRuntime: the check runs in one of its killable child processes, because a
// top level V8 cannot stop (JSON.parse, String#normalize, Intl loops) would otherwise spin in the API process forever.
import { unavailable } from '@vault/domain';
import type { CodeCheckOwner, CodeCheckResult, FormulaCodeChecker } from '@vault/application';
import type { ChildProcessReactorRuntime } from './child-process-reactor-runtime';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './isolated-vm-formula-module';

/**
 * Same answers as IsolatedVmCodeChecker (it runs in the child), plus: a check outlasting `limits.timeoutMs` past the
 * runtime's kill grace has its child SIGKILLed and answers the checker's own "did not finish" failure (422); the
 * owner's half of the check queue full, or a runtime shutting down, is no fault of the code and rejects with the
 * domain's `unavailable` (503 with Retry-After). The runtime's pool is shared with reactor runs and closed with them.
 */
export class ChildProcessCodeChecker implements FormulaCodeChecker {
  constructor(
    private readonly runtime: ChildProcessReactorRuntime,
    private readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
  ) {}

  async check(code: string, owner?: CodeCheckOwner): Promise<CodeCheckResult> {
    const result = await this.runtime.check(code, this.limits, owner);
    if (!('kind' in result)) return result;
    if (result.kind === 'busy') throw unavailable(result.message, result.retryAfterSeconds);
    return { ok: false, reason: result.message };
  }
}
