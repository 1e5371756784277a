// Port: sends one proxied request to its destination and reads the answer, under the service's limits.

/** Header lines in order, names lower-case; a repeated header is several lines. */
export type HeaderLines = [name: string, value: string][];

export interface EgressRequest {
  /** Already checked against the allowed hosts (http: or https:, no user name or password). */
  url: URL;
  /** GET, POST, PUT, PATCH or DELETE. */
  method: string;
  /** What to send, hop-by-hop headers and the vault's own already removed; `host` and `content-length` are the adapter's. */
  headers: HeaderLines;
  /** null: no body (a GET or DELETE without one). */
  body: Buffer | null;
}

export interface EgressResponse {
  status: number;
  /** As received, less hop-by-hop headers, `set-cookie` and `content-length`; the body already decoded (no content-encoding). */
  headers: HeaderLines;
  body: Buffer;
}

/**
 * - `timeout`: no whole answer within the timeout (504).
 * - `unreachable`: the connection failed or broke, or the answer was not HTTP (502).
 * - `too_large`: the answer's body is larger than the cap once decoded (502).
 */
export type EgressFailure = { failed: 'timeout' | 'unreachable' | 'too_large' };

export type EgressAnswer = ({ failed: null } & EgressResponse) | EgressFailure;

export interface ProxyEgress {
  /**
   * Sends `request` once. Redirects are answers like any other (never followed). The adapter asks for an unencoded
   * answer and decodes gzip, deflate and br itself, so that what comes back can be checked. Never rejects for anything
   * the destination does; messages of failures never reach the caller, so the failure kind is all it gives.
   */
  send(request: EgressRequest): Promise<EgressAnswer>;
}
