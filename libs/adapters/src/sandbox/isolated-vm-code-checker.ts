// FormulaCodeChecker on isolated-vm: the code must load as CommonJS in a sandbox and export a function it can call.
import type { CodeCheckResult, FormulaCodeChecker } from '@vault/application';
import { ConcurrencyLimit } from './concurrency-limit';
import { DEFAULT_SANDBOX_LIMITS, exportProblem, loadFormula, type SandboxLimits } from './isolated-vm-formula-module';

export interface CodeCheckerOptions extends SandboxLimits {
  /** Checks running at once; each holds an isolate of up to `memoryLimitMb`, so this bounds the memory they take. */
  maxConcurrent: number;
}

/**
 * Each check gets a fresh isolate, disposed afterwards, so no state leaks between formulas or tenants. The code's
 * top level runs (it has to, to know what `module.exports` becomes) but only inside the isolate: no `process`, no
 * real `require`, no timers, no network, bounded time and memory. The exported function is never called.
 */
export class IsolatedVmCodeChecker implements FormulaCodeChecker {
  private readonly options: CodeCheckerOptions;
  private readonly limit: ConcurrencyLimit;

  constructor(options: Partial<CodeCheckerOptions> = {}) {
    this.options = { ...DEFAULT_SANDBOX_LIMITS, maxConcurrent: 2, ...options };
    this.limit = new ConcurrencyLimit(this.options.maxConcurrent);
  }

  check(code: string): Promise<CodeCheckResult> {
    return this.limit.run(async () => {
      const loaded = await loadFormula(code, this.options);
      if (!loaded.ok) return loaded;
      const { exported } = loaded.formula;
      loaded.formula.dispose();
      return exported === 'function' ? { ok: true } : { ok: false, reason: exportProblem(exported) };
    });
  }
}
