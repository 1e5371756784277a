// The detokenization POST /detokenize and a reactor's args share: the domain reads the body (detokenize.plan.ts), the
// access policy says how each token is handed over (detokenizeAccess), and the tokens are opened as it says.
import {
  assertShapingRevealed,
  detokenizeAccess,
  detokenizeSteps,
  DomainError,
  leastInsight,
  parseTokenData,
  planDetokenize,
  REDACTED_VIEW,
  type AccessTransform,
  type ExpressionEngine,
  type FlowBackSource,
  type TokenRecord,
  type TokenView as ShownToken,
  type UseInsight,
} from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { inTurns, nextTurn } from '../shared/turns';
import type { Caller } from '../shared/use-case';
import { openSealed } from '../tokens/sealing/seal-token';

export interface Detokenized {
  /** The body with every detokenization expression replaced. */
  body: unknown;
  /** Each token the body used, as it was handed over. */
  views: ReadonlyMap<string, ShownToken>;
  /** The caller's least revealing token:read transform over the tokens used; null when the body used none. */
  least: UseInsight | null;
  /** A used token the caller may not read whole: its data, and the view that stands in for it in what flows back. */
  flowBack: FlowBackSource[];
}

export class Detokenizer {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
  ) {}

  /**
   * `splices`: for a use, whether an expression spliced into a longer string shapes the data (a reactor's args, which
   * code reads) or puts it there whole (a proxy's request, which goes to its destination as it is); see assertShapingRevealed.
   */
  async detokenize(
    caller: Caller,
    body: unknown,
    permission: 'token:read' | 'token:use',
    splices: 'shaping' | 'whole' = 'shaping',
  ): Promise<Detokenized> {
    // Every expression and filter chain is read before any token is.
    const plan = planDetokenize(body, { engine: this.engine });
    const views = new Map<string, ShownToken>();
    const readInsight = new Map<string, UseInsight>();
    const flowBack: FlowBackSource[] = [];
    // Every id is looked up the same way, whatever an earlier one gave, so neither the answer nor its timing tells a
    // missing token from one no rule covers.
    for (const [i, id] of plan.tokenIds.entries()) {
      if (i > 0) await nextTurn();
      const found = await this.shown(caller, id, permission);
      if (!found) continue;
      views.set(id, found.view);
      readInsight.set(id, found.read);
      if (permission === 'token:use' && found.read !== 'reveal' && found.view.transform === 'reveal') {
        flowBack.push({ tokenId: id, value: found.view.data, replacement: await this.readView(found.token, found.read) });
      }
    }
    // Before any filter runs: a filter's error must not answer for data the caller may not see either.
    if (permission === 'token:use') assertShapingRevealed(plan, readInsight, { splices });
    const detokenized = await inTurns(detokenizeSteps(plan, views, this.engine));
    return { body: detokenized, views, least: leastInsight(readInsight.values()), flowBack };
  }

  /** What the caller's token:read rule shows of a token it may not see whole: its mask, else nothing (REDACTED_VIEW). */
  private async readView(token: TokenRecord, read: UseInsight): Promise<string> {
    if (read !== 'mask' || token.masked === null) return REDACTED_VIEW;
    try {
      return await openSealed(this.crypto, token, token.masked, 'mask');
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return REDACTED_VIEW;
      throw error;
    }
  }

  /**
   * The token as the access policy hands it over, decrypting only what that shows. Null (the domain's one "not found"
   * 400) when it is missing, expired, another tenant's, deleted (its key shredded) or no rule covers it.
   */
  private async shown(
    caller: Caller,
    id: string,
    permission: 'token:read' | 'token:use',
  ): Promise<{ view: ShownToken; read: UseInsight; token: TokenRecord } | null> {
    const token = await this.index.get(caller.principal.tenantId, id, caller.now.getTime());
    const access = token && detokenizeAccess(caller.principal.accessRules, token.containers, permission);
    if (!token || !access) return null;
    try {
      return { view: await this.view(token, access.shown), read: access.read, token };
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  private async view(token: TokenRecord, transform: AccessTransform): Promise<ShownToken> {
    switch (transform) {
      case 'reveal':
        return { transform: 'reveal', data: parseTokenData(token.type, await openSealed(this.crypto, token, token.encrypted, 'data')) };
      case 'mask':
        return { transform: 'mask', masked: token.masked === null ? null : await openSealed(this.crypto, token, token.masked, 'mask') };
      case 'redact':
        return { transform: 'redact' };
    }
  }
}
