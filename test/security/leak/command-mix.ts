// The command sequences of the leak property: how often each request kind is generated, the run's initial tokens,
// and which generator features an exploration run may leave out.
import fc from 'fast-check';
import { anyCreate, CreateChoice, createChoice, patchChoice, queryChoice } from './token-choices';
import { DeleteCommand, GetCommand, PatchCommand, SearchCommand } from './commands';
import { CreateCommand, createBody } from './create-command';
import { DetokenizeCommand, detokenizeChoice } from './detokenize-command';
import { proxyChoice } from './proxy-choices';
import { ProxyCommand } from './proxy-command';
import { ReactCommand, reactChoice } from './react-command';
import { RuleChangeCommand, ruleChangeChoice } from './rule-change-command';
import { TokenizeCommand, tokenizeChoice } from './tokenize-command';
import type { Cmd, World } from './world';

const ref = fc.record({ app: fc.nat({ max: 31 }), ref: fc.nat({ max: 31 }) });

/**
 * Generator features an exploration run may leave out (never in CI), to find counterexamples other than a known one
 * being fixed: dedupe, derive, deriving-patch, move, react (no reactor invocations at all), react-unrevealed (reactor
 * args only of tokens the caller's token:read rule reveals, and literals), react-tokenize (no tokenize in results),
 * proxy (no proxy invocations).
 */
export const FEATURES = ['dedupe', 'derive', 'deriving-patch', 'move', 'react', 'react-unrevealed', 'react-tokenize', 'proxy'] as const;

/**
 * Encodings a destination may write a value in that the API lets through to a caller its rules show less, left out of
 * every run until it does not (VAULT_LEAK_INCLUDE=<gaps> puts them back, to see them fail or to check a fix):
 * - `proxy-hex-outside`: hex of another encoding of the value (the guard reads hex only as the encoding of a value
 *   itself): of the value without its delimiters, of its base64, of its URL encoding;
 * - `proxy-punctuation`: only the letters and digits of a value that holds other punctuation than the guard's
 *   delimiters (`@`, `:`, `#`, quotes: an e-mail address, a street address, JSON text held as a string).
 */
export const KNOWN_GAPS = ['proxy-hex-outside', 'proxy-punctuation'] as const;

export interface CommandOptions {
  maxCommands: number;
  exclude: ReadonlySet<string>;
  /** KNOWN_GAPS put back into the run. */
  include?: ReadonlySet<string>;
  /** fast-check's replayPath of a failure's command sequence (printed with the counterexample). */
  replayPath?: string;
}

/** The run's initial tokens, created by a seeder application before the commands run. */
export const initialTokensArb = fc.array(
  anyCreate.map((c) => ({ ...c, dedupe: false, derive: undefined })),
  { minLength: 1, maxLength: 4 },
);

export const seedTokens = async (w: World, choices: readonly CreateChoice[]): Promise<void> => {
  for (const choice of choices) await w.seed(createBody(choice, w).body);
};

export const commandsArb = ({ maxCommands, exclude, include = new Set(), replayPath }: CommandOptions) => {
  const withoutDedupe = (c: CreateChoice): CreateChoice => ({
    ...c,
    dedupe: exclude.has('dedupe') ? false : c.dedupe,
    derive: exclude.has('derive') ? undefined : c.derive,
  });
  const create = createChoice.map((c) => new CreateCommand(withoutDedupe(c)) as Cmd);
  const patch = patchChoice
    .filter((c) => !exclude.has('deriving-patch') || (c.mask === undefined && c.searchIndexes === undefined && c.fingerprint === undefined))
    .filter((c) => !exclude.has('move') || c.containers === undefined || c.data !== undefined)
    .map((c) => new PatchCommand(c) as Cmd);
  const get = ref.map((c) => new GetCommand(c) as Cmd);
  const del = ref.map((c) => new DeleteCommand(c) as Cmd);
  const search = fc.record({ app: fc.nat({ max: 31 }), query: queryChoice }).map((c) => new SearchCommand(c) as Cmd);
  const tokenize = tokenizeChoice.map((c) => new TokenizeCommand({ ...c, requests: c.requests.map(withoutDedupe) }) as Cmd);
  const detokenize = detokenizeChoice.map((c) => new DetokenizeCommand(c) as Cmd);
  const react = reactChoice
    .map((c) => (exclude.has('react-tokenize') ? { ...c, tokenize: undefined } : c))
    .map((c) =>
      exclude.has('react-unrevealed')
        ? { ...c, onlyRevealed: true, args: c.args.map((a) => (a.kind === 'token' ? { ...a, target: 'read-reveal' as const } : a)) }
        : c,
    )
    .map((c) => new ReactCommand(c) as Cmd);
  const ruleChange = ruleChangeChoice.map((c) => new RuleChangeCommand(c) as Cmd);
  const proxy = proxyChoice({ gaps: include })
    .map((c) => new ProxyCommand(c) as Cmd);
  const weighted: Array<[number, fc.Arbitrary<Cmd>]> = [
    [3, create],
    [3, patch],
    [2, get],
    [2, search],
    [1, del],
    [2, tokenize],
    [3, detokenize],
    [exclude.has('react') ? 0 : 3, react],
    [1, ruleChange],
    [exclude.has('proxy') ? 0 : 2, proxy],
  ];
  const pool = weighted.flatMap(([weight, arbitrary]) => Array.from({ length: weight }, () => arbitrary));
  return fc.commands(pool, { maxCommands, size: 'max', ...(replayPath ? { replayPath } : {}) });
};
