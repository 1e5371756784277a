// The domain's tokenize plan with the real Liquid engine: what a body's requests evaluate to, and the render budget.
import { setImmediate } from 'node:timers/promises';
import { DomainError, MAX_TOKENIZE_TOKENS, planTokenize, planTokenizeSteps } from '@vault/domain';
import { LiquidExpressionEngine } from './liquid-expression-engine';

const now = new Date('2024-05-01T00:00:00Z');

describe('tokenize with Liquid', () => {
  it(`validates ${MAX_TOKENIZE_TOKENS} social security numbers (five expressions each) when driven in steps`, async () => {
    // All at once they can take longer than the engine's shared budget of one synchronous stretch (30 ms): a handler
    // gives the event loop a turn between requests, and each request gets a budget of its own.
    const engine = new LiquidExpressionEngine();
    const body = Array.from({ length: MAX_TOKENIZE_TOKENS }, (_, i) => ({
      type: 'social_security_number',
      data: `123-45-${String(i).padStart(4, '0')}`,
    }));
    const steps = planTokenizeSteps(body, { now, engine });
    let step = steps.next();
    for (; !step.done; step = steps.next()) await setImmediate();
    const { requests } = step.value;
    expect(requests).toHaveLength(MAX_TOKENIZE_TOKENS);
    expect(requests[7].request.prepared).toMatchObject({ masked: 'XXX-XX-0007', search_values: ['123-45-0007', '123450007', '0007'] });
  });

  it('evaluates leaves with the token type defaults and names a failing request expression by path', async () => {
    const engine = new LiquidExpressionEngine();
    const { requests } = planTokenize({ a: { b: { x: 1 } } }, { now, engine });
    expect(requests[0]).toMatchObject({ path: 'a.b.x', request: { prepared: { fingerprint_input: '1', masked: null } } });
    await setImmediate();
    try {
      planTokenize({ card: { type: 'token', data: { n: 1 }, mask: '{{ data.n | no_such_filter }}' } }, { now, engine });
      throw new Error('accepted');
    } catch (error) {
      expect((error as DomainError).errors).toEqual({ 'card.mask': ['mask is not a valid expression: an unknown filter (line 1, column 1).'] });
    }
  });
});
