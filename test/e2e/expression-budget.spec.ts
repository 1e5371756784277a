// VAULT_EXPRESSION_BUDGET_MS: the CPU time caller-written expressions may use, read at start-up and given to the API.
import { LiquidExpressionEngine } from '@vault/adapters';
import { ConfigError, loadConfig } from '@vault/nest';
import { asKey, createApplication, startTestApp } from '../support/test-app';

const load = (env: Record<string, string>) => loadConfig({ VAULT_DATA_DIR: '/tmp/unused', ...env });

// Hundreds of milliseconds of CPU: far past the default budget, far within the one configured below.
const SLOW_MASK = '{% for i in (1..1000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}{{ data | reveal_last: 4 }}';

describe('expression budget configuration', () => {
  it('defaults to 30 ms and reads VAULT_EXPRESSION_BUDGET_MS', () => {
    expect(load({}).expressionBudgetMs).toBe(30);
    expect(load({ VAULT_EXPRESSION_BUDGET_MS: '250' }).expressionBudgetMs).toBe(250);
  });

  it.each(['0', '-5', '1.5', 'ten'])('refuses VAULT_EXPRESSION_BUDGET_MS=%s at start-up, naming the variable', (value) => {
    expect(() => load({ VAULT_EXPRESSION_BUDGET_MS: value })).toThrow(ConfigError);
    expect(() => load({ VAULT_EXPRESSION_BUDGET_MS: value })).toThrow('VAULT_EXPRESSION_BUDGET_MS');
  });

  it("gives the API's expressions the configured budget", async () => {
    expect(() => new LiquidExpressionEngine().evaluate(SLOW_MASK, '123-45-6789')).toThrow(/template render limit/);
    const test = await startTestApp({ VAULT_EXPRESSION_BUDGET_MS: '60000' });
    try {
      const { key } = await createApplication(test, { name: 'writer', type: 'private', permissions: ['token:create'] });
      const created = await asKey(test, key).post('/tokens', { type: 'social_security_number', data: '123-45-6789', mask: SLOW_MASK });
      expect(created.status).toBe(201);
      expect(created.body.data).toBe('XXX-XX-6789');
    } finally {
      await test.close();
    }
  });
});
