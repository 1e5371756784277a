// What every answer to ANY /proxy must be, whatever was sent: a destination's answer passed on without the vault's
// SVC-PROXY-ERROR or a cookie of the destination; an answer of the vault's own marked SVC-PROXY-ERROR: true, never a 5xx
// but the 502 or 504 of a destination at fault; and in no answer a key, the proxy's configuration or token data the
// caller may not read. What reached the destination never holds the vault's own headers or a key.
import type { ReceivedRequest } from '../../support/local-http-server';
import { DESTINATION_FAULTS } from './fuzz-destination';
import type { ProxyRequest } from './proxy-requests';
import type { RawAnswer } from './raw-http';
import { echoedWindow } from './secret-windows';

/** The largest answer a destination may give (the vault's cap: 1 MiB once decoded). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** How an answer came about. */
export type Origin = 'destination' | 'vault' | 'http-parser' | 'not-a-proxy-path';

/** The texts an answer or a received request may hold a value in: as is, in JSON strings, percent-decoded. */
const readings = (text: string): string[] => {
  const out = [text];
  try {
    const parsed: unknown = JSON.parse(text);
    const pending: unknown[] = [parsed];
    while (pending.length) {
      const node = pending.pop();
      if (typeof node === 'string') out.push(node);
      else if (node && typeof node === 'object') for (const [key, value] of Object.entries(node)) pending.push(key, value);
    }
  } catch {
    // not JSON
  }
  for (const string of [...out]) {
    if (!string.includes('%')) continue;
    try {
      out.push(decodeURIComponent(string));
    } catch {
      // not percent-encoding
    }
  }
  return out;
};

/** A 12-character stretch of `value` found in `text` (any reading of it), or null: long enough never to match by chance. */
export const stretchOf = (text: string, value: string, length = 12): string | null => {
  const haystacks = readings(text);
  for (let i = 0; i + length <= value.length; i++) {
    const stretch = value.slice(i, i + length);
    if (haystacks.some((haystack) => haystack.includes(stretch))) return stretch;
  }
  return null;
};

/** Where a path goes: `/proxy` and below, as Express routes them (any case), else elsewhere. */
export const isProxyPath = (target: string): boolean => /^\/proxy(?:\/|$)/i.test(target.split('?')[0]);

export const originOf = (request: ProxyRequest, answer: RawAnswer): Origin => {
  if (answer.headers['x-destination'] === 'fuzz') return 'destination';
  if (answer.headers['x-request-id'] === undefined) return 'http-parser';
  return isProxyPath(request.target) ? 'vault' : 'not-a-proxy-path';
};

export interface Hidden {
  /** Values no answer may hold (keys, the configuration's secret, token data), by name. */
  values: Record<string, string>;
}

/** What is wrong with the answer to `request`, or null. */
export const problemWith = (request: ProxyRequest, answer: RawAnswer, received: readonly ReceivedRequest[], hidden: Hidden): string | null => {
  const origin = originOf(request, answer);
  const text = `${answer.head}\r\n\r\n${answer.body.toString('utf8')}`;
  if (origin === 'destination') {
    if (answer.headers['svc-proxy-error'] !== undefined) return "the destination's own answer carries SVC-PROXY-ERROR";
    if (answer.headers['set-cookie'] !== undefined) return "the destination's cookie was passed on";
    const asked = /^status(\d{3})$/.exec(request.mode)?.[1];
    if (answer.status >= 500 && String(answer.status) !== asked) return `a ${answer.status} the destination was not asked for`;
  } else if (origin === 'vault') {
    if (answer.headers['svc-proxy-error'] !== 'true') return 'an answer of the vault\'s own without SVC-PROXY-ERROR: true';
    // An echo of a body near 1 MiB is an answer over 1 MiB: the destination's fault too.
    const tooLarge = received.some((got) => Buffer.byteLength(JSON.stringify({ method: got.method, path: got.path, headers: got.headers, body: got.body })) > MAX_ANSWER_BYTES);
    const fault = request.unreachable || tooLarge ? 502 : DESTINATION_FAULTS[request.mode];
    if (answer.status >= 500 && answer.status !== fault) {
      return `a ${answer.status} of the vault's own (${fault ? `the destination's fault is a ${fault}` : 'the destination was not at fault'})`;
    }
  } else if (answer.status >= 500) {
    return `a ${answer.status} ${origin === 'http-parser' ? 'from the HTTP parser' : 'outside /proxy'}`;
  }
  if (origin !== 'destination') {
    const echoed = echoedWindow(text, request.secrets);
    if (echoed !== null) return `an answer of the vault's own echoes ${JSON.stringify(echoed)} of a secret sent`;
  }
  for (const [name, value] of Object.entries(hidden.values)) {
    const found = stretchOf(text, value);
    if (found !== null) return `the answer holds ${JSON.stringify(found)} of ${name}`;
  }
  for (const got of received) {
    const vaultHeaders = Object.keys(got.headers).filter((name) => name.startsWith('svc-'));
    if (vaultHeaders.length) return `the vault's own headers reached the destination: ${vaultHeaders.join(', ')}`;
    const sentOn = `${got.path}\n${JSON.stringify(got.headers)}\n${got.body}`;
    for (const [name, value] of Object.entries(hidden.values)) {
      if (name === 'the configuration secret' || name === 'token data') continue;
      const found = stretchOf(sentOn, value);
      if (found !== null) return `${name} reached the destination (${JSON.stringify(found)})`;
    }
  }
  return null;
};
