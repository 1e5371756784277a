import { DomainError } from '@vault/domain';
import { assertCodeCompiles, type FormulaCodeChecker } from './formula-code-checker';

const checkerAnswering = (answer: Awaited<ReturnType<FormulaCodeChecker['check']>>): FormulaCodeChecker => ({
  check: async () => answer,
});

describe('assertCodeCompiles', () => {
  it('passes code the checker accepts', async () => {
    await expect(assertCodeCompiles(checkerAnswering({ ok: true }), 'module.exports = async () => ({});')).resolves.toBeUndefined();
  });

  it('turns a rejection into a 422 whose errors.code carries the checker\'s reason', async () => {
    const rejection = assertCodeCompiles(checkerAnswering({ ok: false, reason: 'module.exports is a number, not a function.' }), 'module.exports = 1');
    await expect(rejection).rejects.toBeInstanceOf(DomainError);
    await expect(rejection).rejects.toMatchObject({
      kind: 'unprocessable',
      errors: { code: ['module.exports is a number, not a function.'] },
    });
  });
});
