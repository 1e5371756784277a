// PUT /applications/{id} by the tenant's management key in the middle of a run: one generated application gets new
// rules and permissions. From the next request on, the model entitles it by the new rules; what it saw before stays
// known to it (knowledge is never lost), and nothing it was refused before becomes news it may get now unless the
// new rules show it.
import fc from 'fast-check';
import { appArb } from './arbitraries';
import { ran } from './branches';
import type { AppSpec } from './model';
import { type Cmd, describeApp, World } from './world';

export interface RuleChangeChoice {
  app: number;
  spec: AppSpec;
}

export const ruleChangeChoice: fc.Arbitrary<RuleChangeChoice> = fc.record({ app: fc.nat({ max: 31 }), spec: appArb });

export class RuleChangeCommand implements Cmd {
  constructor(readonly c: RuleChangeChoice) {}

  check(): boolean {
    return true;
  }

  async run(w: World): Promise<void> {
    ran('ruleChange');
    w.beginStep();
    const app = w.app(this.c.app);
    const reply = await w.changeRules(app, this.c.spec);
    w.expectStatus(reply, [200], 'the management key may change a private application\'s token permissions and rules');
  }

  toString(): string {
    return `ruleChange(app${this.c.app} → ${describeApp(this.c.spec)})`;
  }
}
