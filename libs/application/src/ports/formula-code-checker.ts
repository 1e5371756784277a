// Port: proves a formula's code compiles and exports a function, without running it outside a sandbox.
import { DomainError } from '@vault/domain';

export type CodeCheckResult = { ok: true } | { ok: false; reason: string };

/** Whose formula write a check is for (null: the operator's): a checker may share its capacity fairly between them. */
export interface CodeCheckOwner {
  tenantId: string | null;
}

export interface FormulaCodeChecker {
  /** Never rejects for bad user code: every failure of the code itself is an `ok: false` with a reason for the user. */
  check(code: string, owner?: CodeCheckOwner): Promise<CodeCheckResult>;
}

/** Throws DomainError 'unprocessable' (422) with `errors.code = [reason]` when the checker rejects the code. */
export const assertCodeCompiles = async (checker: FormulaCodeChecker, code: string, owner?: CodeCheckOwner): Promise<void> => {
  const result = await checker.check(code, owner);
  if (!result.ok) {
    throw new DomainError('unprocessable', 'The formula code does not compile or does not export a function.', {
      code: [result.reason],
    });
  }
};
