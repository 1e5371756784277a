// A code transform's code must load and export a function, checked as a formula's is: a 422 naming the transform.
import { DomainError, type ProxyTransform, type ValidProxy } from '@vault/domain';
import type { FormulaCodeChecker } from '../ports/formula-code-checker';

export const assertTransformsCompile = async (checker: FormulaCodeChecker, valid: ValidProxy, tenantId: string): Promise<void> => {
  const errors: Record<string, string[]> = {};
  const check = async (transforms: ProxyTransform[], direction: string) => {
    for (const [i, transform] of transforms.entries()) {
      if (transform.type !== 'code') continue;
      const result = await checker.check(transform.code, { tenantId });
      if (!result.ok) errors[`${direction}[${i}].code`] = [result.reason];
    }
  };
  await check(valid.request_transforms, 'request_transforms');
  await check(valid.response_transforms, 'response_transforms');
  if (Object.keys(errors).length > 0) throw new DomainError('unprocessable', 'The code of a transform does not compile or does not export a function.', errors);
};
