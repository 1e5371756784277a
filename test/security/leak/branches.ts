// What the leak property ran: request and status counts, and how often each command and each rule of "What a write
// may reveal" was put to the test (counted only when the API answered as the model predicted). A run that leaves a
// branch nearly untried proves nothing about it, so the default run fails below MIN_PER_BRANCH.
export const MIN_PER_BRANCH = 5;
/** The proxy branches' own floor: an invocation is one command among many, and each of its outcomes must still be seen. */
export const MIN_PER_PROXY_BRANCH = 8;

export const BRANCHES = {
  create: 'POST /tokens',
  patch: 'PATCH /tokens/{id}',
  get: 'GET /tokens/{id}',
  delete: 'DELETE /tokens/{id}',
  search: 'POST /tokens/search',
  tokenize: 'POST /tokenize',
  detokenize: 'POST /detokenize',
  react: 'POST /reactors/{id}/react',
  ruleChange: 'PUT /applications/{id} (rules and permissions changed mid-run)',
  dedupeCovered: 'POST /tokens deduplicated to a token a token:create rule of the caller covers (200)',
  dedupeHidden: 'POST /tokens with deduplicate_token matching only tokens no token:create rule of the caller covers (201, new)',
  rederive403: 'PATCH re-deriving mask/search_indexes/fingerprint_expression without data under a non-reveal rule (403)',
  move403: 'PATCH of containers without data that would show the caller more (403)',
  tokenizeLeaves: 'POST /tokenize of leaves (each a new token)',
  tokenizeDedupeCovered: 'POST /tokenize request deduplicated to a token a token:create rule of the caller covers',
  tokenizeDedupeHidden: 'POST /tokenize request with deduplicate_token matching only tokens the caller may not create in (new)',
  detokenizeReveal: 'POST /detokenize of a token its token:read rule reveals (the data)',
  detokenizeMask: 'POST /detokenize of a token its token:read rule masks (the mask)',
  detokenizeMaskShaped: 'POST /detokenize with filters or inside a longer string on a masked token (applied to the mask)',
  detokenizeHidden403: 'POST /detokenize of a redacted token, or a masked token without a mask (403 naming the path)',
  detokenizeNoRule400: 'POST /detokenize of a live token no token:read rule covers (400, the not-found message)',
  detokenizeUnknown400: 'POST /detokenize of an id that is no token (400, the same message)',
  reactRevealed: 'react whose args used only tokens the caller\'s token:read rule reveals',
  reactMasked: 'react whose args used a token the caller\'s token:read rule masks and whose data it does not know (raw shows at most the mask)',
  reactUnread: 'react whose args used a token the caller\'s token:read rule redacts or does not cover and whose data it does not know',
  reactEcho: 'react whose code sent the args to a destination that echoes them',
  reactThrown: 'react whose code threw with the args in its message (422, errors.reactor)',
  reactShaping403: 'react with filters or an expression inside a longer string on a token not revealed (403)',
  reactMissing400: 'react with an expression of a token missing or not covered by token:use (400)',
  reactTokenize: 'react whose result is tokenized',
  reactTokenizeIdOnly: 'react whose result is tokenized from tokens the caller does not reveal (id-only views)',
  reactTokenizeAsApplication: 'react whose result is tokenized as the reactor\'s own (revealing) application',
  reactTokenize403: 'react whose result would become a token the caller\'s rules show more than its args\' tokens (403)',
  proxy: 'ANY /proxy to a destination that echoes the request in every encoding, in its body and headers',
  proxyRevealed: 'proxy invocation whose expressions used only tokens the caller\'s token:read rule reveals (the answer as the destination wrote it)',
  proxyMasked: 'proxy invocation that used a token the caller\'s token:read rule masks and whose data it does not know (the mask in its place)',
  proxyUnread: 'proxy invocation that used a token the caller\'s token:read rule redacts or does not cover, whose data it does not know ([redacted])',
  proxyViewInPlace: 'proxy invocation whose JSON answer holds the caller\'s view (mask, else [redacted]) where the destination echoed a value not revealed',
  proxyEmbedded: 'proxy invocation with an expression spliced into a longer string on a token not revealed (allowed: the value goes whole)',
  proxyHeader: 'proxy invocation that detokenized a header value',
  proxyText: 'proxy invocation that detokenized a text or form body',
  proxyShaping403: 'proxy invocation with a filter on a token the caller\'s token:read rule does not reveal (403 naming the place)',
  proxyMissing400: 'proxy invocation with an expression of a token missing or not covered by token:use (400, the not-found message)',
  proxyNoUse403: 'proxy invocation by an application without token:use (403)',
  proxyAnonymous: 'anonymous invocation of a proxy without require_auth (forwarded, expressions as sent)',
  proxyAnonymous401: 'anonymous invocation of a proxy that needs an API key, or of an ephemeral destination (401)',
  proxyUnknownKey: 'proxy invocation with an SVC-PROXY-KEY that names no proxy (404)',
  proxyEphemeral: 'ephemeral proxy invocation (SVC-PROXY-URL)',
  proxyTransformed: 'proxy invocation through request or response transforms',
  proxyTokenize: 'proxy invocation whose tokenize transform made a token (the caller shown its id only)',
  proxyDestinationStatus: 'proxy invocation whose destination answered 3xx, 4xx or 5xx (passed back as its own, without SVC-PROXY-ERROR)',
} as const;

export type Branch = keyof typeof BRANCHES;

export const stats = {
  cases: 0,
  commands: 0,
  requests: 0,
  auditorRequests: 0,
  statuses: {} as Record<string, number>,
  branches: Object.fromEntries(Object.keys(BRANCHES).map((b) => [b, 0])) as Record<Branch, number>,
  /** Status/view mismatches let through when VAULT_LEAK_INVARIANT_ONLY is set (exploration only), and a few of them. */
  ignoredMismatches: 0,
  ignoredSamples: new Set<string>(),
};

export const count = (branch: Branch): void => {
  stats.branches[branch]++;
};

/** One more command of this kind ran. */
export const ran = (kind: Branch): void => {
  stats.commands++;
  count(kind);
};

/** The branches a generator feature left out (command-mix.ts FEATURES) no longer reaches, or rarely. */
export const FEATURE_BRANCHES: Record<string, readonly Branch[]> = {
  dedupe: ['dedupeCovered', 'dedupeHidden', 'tokenizeDedupeCovered', 'tokenizeDedupeHidden'],
  derive: ['dedupeCovered', 'dedupeHidden', 'tokenizeDedupeCovered', 'tokenizeDedupeHidden'],
  'deriving-patch': ['rederive403'],
  move: ['move403'],
  react: ['react', 'reactRevealed', 'reactMasked', 'reactUnread', 'reactEcho', 'reactThrown', 'reactShaping403', 'reactMissing400', 'reactTokenize', 'reactTokenizeIdOnly', 'reactTokenizeAsApplication', 'reactTokenize403'],
  'react-unrevealed': ['reactMasked', 'reactUnread', 'reactShaping403', 'reactTokenizeIdOnly', 'reactTokenize403'],
  'react-tokenize': ['reactTokenize', 'reactTokenizeIdOnly', 'reactTokenizeAsApplication', 'reactTokenize403'],
  proxy: (Object.keys(BRANCHES) as Branch[]).filter((b) => b.startsWith('proxy')),
};

const minimumOf = (branch: Branch) => (branch.startsWith('proxy') ? MIN_PER_PROXY_BRANCH : MIN_PER_BRANCH);

/** The branches that ran fewer times than their minimum, with what they mean (less those `excluded` features reach). */
export const undertested = (excluded: Iterable<string> = []): string[] => {
  const skipped = new Set([...excluded].flatMap((feature) => FEATURE_BRANCHES[feature] ?? []));
  return (Object.keys(BRANCHES) as Branch[])
    .filter((b) => !skipped.has(b) && stats.branches[b] < minimumOf(b))
    .map((b) => `${b} (${stats.branches[b]}): ${BRANCHES[b]}`);
};

export const branchTable = (): string =>
  (Object.keys(BRANCHES) as Branch[]).map((b) => `  ${String(stats.branches[b]).padStart(5)}  ${b}`).join('\n');
