// ANY /proxy[/<path>]: the proxy an SVC-PROXY-KEY names (header or svc-proxy-key query parameter), or the destination of
// an SVC-PROXY-URL, invoked with the request as it came, less the vault's own and hop-by-hop headers. The destination's
// answer goes back as it came out of the use case; every answer the vault makes itself carries SVC-PROXY-ERROR: true.
// One handler per method and path, for the OpenAPI document (proxy-invocation.dto.ts, which also declares them public:
// invoke() checks SVC-API-KEY itself), all doing the same; any other method falls through to the last one, a 405.
import { All, Controller, Delete, Get, HttpException, Inject, Patch, Post, Put, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticator, Caller, currentRequestContext, InvokeProxyCommand, type ProxyInvocation, type TenantKeys } from '@vault/application';
import { DomainError, tenantDeletedError } from '@vault/domain';
import { createHash } from 'node:crypto';
import { TENANT_KEYS, VAULT_CONFIG, VaultBus, VaultConfig, VaultMetrics } from '@vault/nest';
import { Public, RATE_LIMITED } from '../http/access.decorators';
import { problem } from '../http/problem';
import { API_KEY_RATE_LIMITER, RateLimiter } from '../http/rate-limiter';
import { PROXY_ERROR_HEADER } from './proxy-bodies';
import { ApiProxyInvocation } from './proxy-invocation.dto';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Never forwarded: the vault's own headers, hop-by-hop ones, and what the vault sets itself for the body it sends. */
const NOT_FORWARDED = new Set([
  'svc-api-key',
  'svc-proxy-key',
  'svc-proxy-url',
  'host',
  'content-length',
  'content-encoding',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

const PROXY_KEY_PARAMETER = 'svc-proxy-key';
/**
 * Never passed on from an answer: only the vault says an answer is its own (SVC-PROXY-ERROR), and the vault sets the
 * policy its origin serves the answer under (a destination's own would loosen it, or widen a service worker's scope).
 */
const DROPPED_ANSWER_HEADERS = new Set([
  PROXY_ERROR_HEADER.toLowerCase(),
  'content-security-policy',
  'content-security-policy-report-only',
  'x-content-type-options',
  'service-worker-allowed',
]);

@ApiTags('Proxies')
@Controller('proxy')
export class ProxyInvocationController {
  private readonly anonymous: RateLimiter;
  private readonly anonymousAddresses: RateLimiter;

  constructor(
    private readonly bus: VaultBus,
    private readonly authenticator: Authenticator,
    private readonly metrics: VaultMetrics,
    @Inject(VAULT_CONFIG) config: VaultConfig,
    @Inject(TENANT_KEYS) private readonly tenantKeys: TenantKeys,
    @Inject(API_KEY_RATE_LIMITER) private readonly callers: RateLimiter,
  ) {
    this.anonymous = new RateLimiter(config.proxyAnonymousRatePerSecond);
    this.anonymousAddresses = new RateLimiter(config.proxyAnonymousRatePerSecond * 10);
  }

  // `/proxy/<path>`. Express lets a GET route take HEAD too: invoke() answers it 405, as it does every other method.
  @Get('*path')
  @ApiProxyInvocation('GET', { withPath: true })
  invokeGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Post('*path')
  @ApiProxyInvocation('POST', { withPath: true })
  invokePost(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Put('*path')
  @ApiProxyInvocation('PUT', { withPath: true })
  invokePut(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Patch('*path')
  @ApiProxyInvocation('PATCH', { withPath: true })
  invokePatch(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Delete('*path')
  @ApiProxyInvocation('DELETE', { withPath: true })
  invokeDelete(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  // `/proxy` (and `/proxy/`): no path to append.
  @Get()
  @ApiProxyInvocation('GET', { withPath: false })
  invokeRootGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Post()
  @ApiProxyInvocation('POST', { withPath: false })
  invokeRootPost(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Put()
  @ApiProxyInvocation('PUT', { withPath: false })
  invokeRootPut(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Patch()
  @ApiProxyInvocation('PATCH', { withPath: false })
  invokeRootPatch(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  @Delete()
  @ApiProxyInvocation('DELETE', { withPath: false })
  invokeRootDelete(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  /** Any other method, on either path: a 405 with Allow (from invoke()). Last, so that it takes only what is left. */
  @All(['', '*path'])
  @ApiExcludeEndpoint()
  @Public()
  invokeOtherMethod(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.invoke(req, res);
  }

  private async invoke(req: Request, res: Response): Promise<void> {
    res.setHeader(PROXY_ERROR_HEADER, 'true');
    try {
      const method = req.method.toUpperCase();
      if (!METHODS.has(method)) {
        res.setHeader('Allow', [...METHODS].join(', '));
        throw new HttpException(problem(405, `A proxy is invoked with ${[...METHODS].join(', ')}.`), 405);
      }
      // A page of a destination must not install a service worker over the vault's own pages.
      if (req.headers['service-worker'] !== undefined) {
        throw new HttpException(problem(403, 'A proxy does not serve service worker scripts.'), 403);
      }
      const { path, query, keyInQuery } = splitUrl(req.originalUrl);
      const proxyKey = single(req.headers['svc-proxy-key']) ?? keyInQuery;
      const proxyUrl = single(req.headers['svc-proxy-url']);
      const caller = await this.caller(req, proxyKey);
      const invocation: ProxyInvocation = {
        method,
        path,
        query,
        headers: forwardedHeaders(req.rawHeaders),
        body: Buffer.isBuffer(req.body) ? req.body : null,
        proxyKey,
        proxyUrl,
      };
      const answer = await this.bus.execute(new InvokeProxyCommand(caller, invocation));
      // Revocation is immediate: a caller whose key stopped being valid while this ran gets the 401 a new request would.
      if (caller !== null) await this.assertStillAuthenticated(req, caller);
      res.removeHeader(PROXY_ERROR_HEADER);
      res.status(answer.status);
      // Node's own setHeader: Express's would add a charset to a Content-Type the destination sent without one.
      const grouped = new Map<string, string[]>();
      for (const [name, value] of answer.headers) {
        // Only the vault says an answer is its own: the destination's (or a transform's) SVC-PROXY-ERROR is dropped.
        if (DROPPED_ANSWER_HEADERS.has(name.toLowerCase())) continue;
        grouped.set(name, [...(grouped.get(name) ?? []), value]);
      }
      for (const [name, values] of grouped) res.setHeader(name, values.length === 1 ? values[0] : values);
      // The answer is served from the vault's origin: whatever it is, a browser runs no script of it there.
      res.setHeader('content-security-policy', "sandbox; default-src 'none'; frame-ancestors 'none'");
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('content-length', answer.body.length);
      res.end(answer.body);
      this.metrics.proxyInvoked(answer.status, false, answer.destinationMs / 1000);
    } catch (error) {
      this.metrics.proxyInvoked(statusOf(error), true, null);
      throw error;
    }
  }

  /** The caller of an invocation with SVC-API-KEY (401 for a bad one), else null; either way within its rate. */
  private async caller(req: Request, proxyKey: string | null): Promise<Caller | null> {
    const apiKey = single(req.headers['svc-api-key']);
    if (apiKey === null) {
      // Per proxy key and client address: an anonymous proxy is an open door, and guessing keys goes through here too.
      const address = req.socket.remoteAddress ?? '';
      const bucket = `${createHash('sha256').update(proxyKey ?? '').digest('base64url')}|${address}`;
      this.limit(this.anonymous.take(bucket));
      // And per address over every key, ten times that: guessing keys, each its own bucket above, is bounded here.
      this.limit(this.anonymousAddresses.take(address));
      return null;
    }
    const principal = await this.authenticator.authenticate(apiKey);
    this.limit(this.callers.take(principal.applicationId));
    return { principal, now: new Date(), requestId: currentRequestContext()?.requestId ?? 'none' };
  }

  private async assertStillAuthenticated(req: Request, caller: Caller): Promise<void> {
    if (this.tenantKeys.isTenantKeyDestroyed(caller.principal.tenantId)) throw tenantDeletedError();
    if (!(await this.authenticator.stillAuthenticates(single(req.headers['svc-api-key']) ?? undefined, caller.principal))) {
      throw new DomainError('unauthenticated', 'The API key is not valid.');
    }
  }

  private limit(wait: number): void {
    if (wait === 0) return;
    this.metrics.rateLimited();
    throw new HttpException({ ...problem(429, RATE_LIMITED), retryAfter: wait }, 429);
  }
}

const single = (value: string | string[] | undefined): string | null => (Array.isArray(value) ? (value[0] ?? null) : (value ?? null));

/**
 * What follows `/proxy` in the path, and the query without the svc-proxy-key parameter (whose value is taken), both as
 * the caller wrote them (percent-encoding kept).
 */
const splitUrl = (originalUrl: string): { path: string; query: string; keyInQuery: string | null } => {
  const at = originalUrl.indexOf('?');
  const rawPath = at === -1 ? originalUrl : originalUrl.slice(0, at);
  const rawQuery = at === -1 ? '' : originalUrl.slice(at + 1);
  let keyInQuery: string | null = null;
  const kept = rawQuery.split('&').filter((part) => {
    if (part === '') return false;
    const [name, value = ''] = part.split('=', 2);
    if (decodeOrSelf(name).toLowerCase() !== PROXY_KEY_PARAMETER) return true;
    keyInQuery ??= decodeOrSelf(value.replace(/\+/g, ' '));
    return false;
  });
  return { path: rawPath.slice('/proxy'.length), query: kept.join('&'), keyInQuery };
};

const decodeOrSelf = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The request's header lines as sent (names lower-cased), less those never forwarded and those `connection` names. */
const forwardedHeaders = (rawHeaders: string[]): Array<[string, string]> => {
  const lines: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) lines.push([rawHeaders[i].toLowerCase(), rawHeaders[i + 1]]);
  const named = new Set(
    lines
      .filter(([name]) => name === 'connection')
      .flatMap(([, value]) => value.split(','))
      .map((name) => name.trim().toLowerCase()),
  );
  return lines.filter(([name]) => !NOT_FORWARDED.has(name) && !named.has(name));
};

const statusOf = (error: unknown): number => {
  if (error instanceof HttpException) return error.getStatus();
  const kind = (error as { kind?: string } | null)?.kind;
  const statuses: Record<string, number> = {
    validation: 400,
    unauthenticated: 401,
    forbidden: 403,
    not_found: 404,
    unprocessable: 422,
    unavailable: 503,
    bad_gateway: 502,
    gateway_timeout: 504,
  };
  return (kind && statuses[kind]) || 500;
};
