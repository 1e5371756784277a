// fast-check generators of the proxy invocations of the leak property (proxy-command.ts): who calls, through which
// proxy or SVC-PROXY-URL, which tokens its expressions name (by what the caller's token:read rule shows of them), where
// they go (JSON, text or form body, header values), and what the destination answers (status, media type, encodings).
import fc from 'fast-check';
import { secretString } from './arbitraries';
import { ExpressionChoice, expressionChoice } from './expressions';
import { BODY_ENCODINGS, gapEncodings, type EchoEncoding, type EchoMedia } from './proxy-echo';
import { ProxySpec, proxySpecArb } from './proxy-fixtures';

export type ProxyTarget = 'read-reveal' | 'read-mask' | 'read-other' | 'no-use' | 'any' | 'unknown';
export type BodyKind = 'json' | 'text' | 'form' | 'octet' | 'none';

export interface ProxyItem extends ExpressionChoice {
  target: ProxyTarget;
  place: 'body' | 'header';
}

export interface ProxyChoice {
  app: number;
  /** An application without token:use (then a 403), when there is one. */
  anyApp: boolean;
  anonymous: boolean;
  route: 'proxy' | 'ephemeral' | 'unknown-key';
  keyIn: 'header' | 'query';
  spec: ProxySpec;
  body: BodyKind;
  method: number;
  items: ProxyItem[];
  literal: string;
  status: number;
  media: EchoMedia;
  /** What the destination writes the request in: a few encodings each time (all of them cost too much to decode). */
  bodyEncodings: EchoEncoding[];
  headerEncodings: EchoEncoding[];
  /** Encodings of KNOWN_GAPS the destination writes as well (only those a run puts back). */
  gapEncodings: EchoEncoding[];
  unknownId: string;
}

const item: fc.Arbitrary<ProxyItem> = fc
  .tuple(
    expressionChoice({ filters: 5, embed: 4 }),
    fc.constantFrom<ProxyTarget>('read-reveal', 'read-mask', 'read-mask', 'read-mask', 'read-other', 'read-other', 'read-other', 'no-use', 'any', 'unknown'),
    fc.constantFrom<ProxyItem['place']>('body', 'body', 'header'),
  )
  .map(([e, target, place]) => ({ ...e, target, place }));

export const proxyChoice = (options: { gaps: ReadonlySet<string> }): fc.Arbitrary<ProxyChoice> =>
  fc.record({
    app: fc.nat({ max: 31 }),
    anyApp: fc.nat({ max: 5 }).map((n) => n === 0),
    anonymous: fc.nat({ max: 5 }).map((n) => n === 0),
    route: fc.constantFrom<ProxyChoice['route']>('proxy', 'proxy', 'proxy', 'proxy', 'ephemeral', 'unknown-key'),
    keyIn: fc.constantFrom<ProxyChoice['keyIn']>('header', 'header', 'query'),
    spec: proxySpecArb,
    body: fc.constantFrom<BodyKind>('json', 'json', 'json', 'text', 'form', 'octet', 'none'),
    method: fc.nat({ max: 2 }),
    items: fc.array(item, { minLength: 1, maxLength: 3 }),
    literal: secretString,
    status: fc.constantFrom(200, 200, 200, 200, 201, 302, 404, 500, 503),
    media: fc.constantFrom<EchoMedia>('json', 'json', 'json', 'text', 'html', 'octet'),
    bodyEncodings: fc.subarray(BODY_ENCODINGS, { minLength: 2, maxLength: 5 }),
    headerEncodings: fc.subarray(BODY_ENCODINGS, { minLength: 1, maxLength: 2 }),
    gapEncodings: fc.subarray(gapEncodings(options.gaps)),
    unknownId: fc.uuid({ version: 4 }),
  });
