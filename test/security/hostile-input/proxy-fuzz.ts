// The proxy section of the hostile-input fuzzer: sends an invocation written by hand (proxy-requests.ts) to the API,
// checks its answer and what reached the destination (proxy-checks.ts), and keeps count of where answers came from.
import type { LocalHttpServer } from '../../support/local-http-server';
import type { Mode } from './fuzz-destination';
import { originOf, problemWith, type Origin } from './proxy-checks';
import { requestBytes, type ProxyRequest } from './proxy-requests';
import { rawRequest, type RawAnswer } from './raw-http';
import { PROXY_SECRETS, type References } from './references';

export class ProxyFuzz {
  readonly origins = new Map<Origin, number>();
  private readonly statuses = new Map<string, number>();
  private readonly modes = new Map<Mode, number>();
  private requests = 0;

  constructor(
    private readonly port: number,
    private readonly destination: LocalHttpServer,
    private readonly refs: References,
    /** Every secret sent, for the log scan at the end. */
    private readonly sent: Set<string>,
  ) {}

  /** The values no answer, log line or metric may hold, by name. */
  async hidden(): Promise<Record<string, string>> {
    return {
      'the proxy key': await this.refs.ready('proxyKey'),
      'the anonymous proxy key': await this.refs.ready('anonymousProxyKey'),
      'the invoking API key': await this.refs.ready('useKey'),
      'the private API key': await this.refs.ready('privateKey'),
      'the management API key': await this.refs.ready('adminKey'),
      'the configuration secret': PROXY_SECRETS.configuration,
      'token data': PROXY_SECRETS.tokenData,
    };
  }

  /** Sends the invocation as written; throws what is wrong with its answer. Null: no answer, as HTTP allows. */
  async invoke(request: ProxyRequest): Promise<RawAnswer | null> {
    for (const secret of request.secrets) this.sent.add(secret);
    const before = this.destination.received.length;
    const bytes = requestBytes(request, (text) => this.refs.resolve(text));
    const answer = await rawRequest(this.port, bytes, { halfClose: request.body?.framing === 'short-length', timeoutMs: 10_000 });
    // Node's HTTP server hangs up on a CONNECT no one listens for: no invocation, and nothing said.
    if (answer === null && request.method === 'CONNECT') return null;
    if (answer === null) throw new Error(`${request.what}: no answer`);
    const origin = originOf(request, answer);
    this.requests++;
    this.origins.set(origin, (this.origins.get(origin) ?? 0) + 1);
    const label = `${answer.status} ${origin}`;
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
    if (origin === 'destination') this.modes.set(request.mode, (this.modes.get(request.mode) ?? 0) + 1);
    const hidden = await this.hidden();
    // The private application's rule reveals every token: the data may come back to it.
    if (request.caller === 'private') delete hidden['token data'];
    const problem = problemWith(request, answer, this.destination.received.slice(before), { values: hidden });
    if (problem) throw new Error(`${request.what}: ${problem}\n${answer.head}\n\n${answer.body.toString('utf8').slice(0, 600)}`);
    return answer;
  }

  summary(): string {
    const origins = [...this.origins].map(([origin, n]) => `${origin} ${n}`).join(', ');
    const statuses = [...this.statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}×${n}`).join(' ');
    const modes = [...this.modes].map(([mode, n]) => `${mode} ${n}`).join(', ');
    return `ANY /proxy, ${this.requests} invocations: ${origins}\nstatuses: ${statuses}\ndestination answers by mode: ${modes}`;
  }
}

/** A well-formed invocation by the key that may use but not read the proxies' token, through the stable proxy. */
export const invocation = (overrides: Partial<ProxyRequest>): ProxyRequest => ({
  method: 'GET',
  target: '/proxy/mode/echo',
  query: '',
  headers: [
    ['SVC-API-KEY', '⟨useKey⟩'],
    ['SVC-PROXY-KEY', '⟨proxyKey⟩'],
  ],
  body: null,
  secrets: [],
  caller: 'use',
  mode: 'echo',
  unreachable: false,
  what: 'an invocation',
  ...overrides,
});
