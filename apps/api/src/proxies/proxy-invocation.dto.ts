// The proxy invocation (ANY /proxy[/<path>]) in the OpenAPI document: what each of its operations says, the examples,
// and its access. Whatever is sent is forwarded, so the request and the answer are described, not given a schema.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, DECORATORS, type HeadersObject } from '@nestjs/swagger';
import { NO_USABLE_PROXY, TRANSFORM_FAILED } from '@vault/application';
import { lacksPermission, Public, RATE_LIMITED } from '../http/access.decorators';
import { ApiProblem } from '../http/problem';

export type InvocationMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The methods whose operations document a request body; the others forward one too, when it is sent. */
const WITH_BODY: InvocationMethod[] = ['POST', 'PUT', 'PATCH'];

/** The id a request example's detokenization expression names: test/e2e/openapi.spec.ts puts a real card token's id there. */
export const EXAMPLE_PROXIED_CARD_TOKEN = '3f9d2c71-8b4e-4a06-9d15-6c2e7b0a5f48';

/** A body for a payment provider: the card number goes out as the token's data, in place of the expression. */
export const INVOKE_PROXY_EXAMPLE = { card_number: `{{ ${EXAMPLE_PROXIED_CARD_TOKEN} }}`, amount: 1000, currency: 'eur' };

/** What such a provider might answer; the vault passes on whatever the destination answers. */
export const PROXY_ANSWER_EXAMPLE = { charge: 'ch_1001', status: 'succeeded', amount: 1000, currency: 'eur' };

const DESCRIPTION = [
  'Sends the request on to a destination, and answers with what the destination answered. The destination is either',
  '',
  '- **pre-configured**: the proxy whose key is in the `SVC-PROXY-KEY` header or the `svc-proxy-key` query parameter (which is not forwarded); or',
  '- **ephemeral**: the URL in the `SVC-PROXY-URL` header, checked as a proxy’s `destination_url` is (on a host of `VAULT_PROXY_ALLOWED_HOSTS`), with no transforms and no configuration.',
  '',
  'Giving both is a 400. `SVC-API-KEY`, the key of a private application of the proxy’s tenant holding `token:use`, may be left out only to invoke a proxy with `require_auth: false`; an ephemeral invocation always needs it.',
  '',
  'The path after `/proxy` and the query are appended to the destination’s (a `..` that would climb above its path is a 400 naming `path`). Headers are forwarded but for the vault’s own (`SVC-API-KEY`, `SVC-PROXY-KEY`, `SVC-PROXY-URL`), hop-by-hop ones, `Host`, `Content-Length`, `Content-Encoding` and `Expect`. The body may be of any media type, up to 1 MiB once a gzip, deflate, br or zstd `Content-Encoding` is undone.',
  '',
  'In order: the proxy’s request transforms run. With `SVC-API-KEY`, every `{{ <token id> }}` (or `{{ token: <token id> }}`) in a JSON or text body and in header values is **detokenized**: replaced by the token’s data, at most 100 per request; each token needs a rule of the caller granting `token:use`, and a filter (`{{ <token id> | last4 }}`) a `reveal` read rule too. Without `SVC-API-KEY`, expressions are forwarded as they were sent. The invocation and every token used are written to the audit log, then the request is sent: the destination has `VAULT_PROXY_TIMEOUT_MS` (25 s by default) for the whole exchange, and a redirect is answered, not followed. The proxy’s response transforms run on its answer.',
  '',
  '**What flows back**: every value the request detokenized is replaced, wherever the answer holds it (body and headers, in the usual encodings), by the caller’s own `token:read` view of its token: its mask, else `[redacted]`; the proxy’s configuration values by `[redacted]`.',
  '',
  'The answer is then the destination’s, with any status: its headers less hop-by-hop ones, `Set-Cookie`, `Content-Length` and `Content-Encoding`, and its body decoded. Every answer the vault makes itself is a problem with the header `SVC-PROXY-ERROR: true`, which the destination’s answers never carry.',
].join('\n');

const SVC_PROXY_ERROR: HeadersObject = {
  'SVC-PROXY-ERROR': { description: 'Always `true`: the vault made this answer, not the destination', schema: { type: 'string', enum: ['true'] } },
};
const RETRY_AFTER: HeadersObject = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } };

/** A problem the vault answers itself, marked so that a client tells it from the destination's answer of that status. */
const vaultProblem = (status: number, description: string, detail: string, errors?: Record<string, string[]>, headers: HeadersObject = {}) =>
  ApiProblem(status, description, detail, errors, { ...headers, ...SVC_PROXY_ERROR });

const PROBLEMS = () =>
  applyDecorators(
    vaultProblem(
      400,
      'Neither or both of `SVC-PROXY-KEY` and `SVC-PROXY-URL`; an `SVC-PROXY-URL` not on `VAULT_PROXY_ALLOWED_HOSTS`; a `path` that leaves the destination’s path; a token not found, or not covered by a `token:use` rule (named by its place: `body.card_number`, `body`, `headers.authorization`); more than 100 expressions; a request field a tokenize transform cannot turn into a token; a body that cannot be read.',
      'One or more validation errors occurred.',
      { 'SVC-PROXY-KEY': ['SVC-PROXY-KEY (or the svc-proxy-key query parameter) or SVC-PROXY-URL is required.'] },
    ),
    vaultProblem(
      401,
      'An `SVC-API-KEY` that is not valid; none, for an ephemeral invocation or with a proxy key that names no proxy with `require_auth: false` (an unknown key answers the same).',
      NO_USABLE_PROXY,
    ),
    vaultProblem(
      403,
      'An `SVC-API-KEY` that is not a private application’s, or whose application lacks `token:use`; a filter on a token the caller may not read in plaintext (a `reveal` rule). Nothing was sent.',
      lacksPermission('token:use'),
    ),
    vaultProblem(404, 'With `SVC-API-KEY`: `SVC-PROXY-KEY` names no proxy of the caller’s tenant.', 'Proxy was not found.', {
      'SVC-PROXY-KEY': ['SVC-PROXY-KEY names no proxy of this tenant.'],
    }),
    vaultProblem(413, 'The body is over 1 MiB, after any Content-Encoding is undone.', 'The request body is larger than 1 MiB.'),
    vaultProblem(
      415,
      'The body has a Content-Encoding other than gzip, deflate, br or zstd.',
      'The request body encoding is not supported (identity, gzip, deflate, br or zstd).',
    ),
    vaultProblem(
      422,
      'A transform threw, timed out or returned something unusable (`errors` names it, with the configuration’s values redacted in its message); the proxy’s application is gone, for a tokenize transform.',
      TRANSFORM_FAILED,
      { 'request_transforms[0]': ['headers must be an object of header names to strings.'] },
    ),
    vaultProblem(
      429,
      'Over the rate limit: of the API key’s application, or without `SVC-API-KEY`, of the proxy key and client address (`VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND`); retry after `Retry-After` seconds.',
      RATE_LIMITED,
      undefined,
      RETRY_AFTER,
    ),
    vaultProblem(
      502,
      'The destination could not be reached or did not answer HTTP; its answer is over 1 MiB; its host is no longer on `VAULT_PROXY_ALLOWED_HOSTS`; its answer was too costly to check for token data, and is withheld.',
      'The destination could not be reached, or its answer was not valid HTTP.',
    ),
    vaultProblem(
      503,
      'The transform sandbox is busy, or the access records could not be written (nothing was sent, or nothing answered); retry after `Retry-After` seconds.',
      'The access could not be recorded in the audit log, so nothing was answered; retry the request.',
      undefined,
      RETRY_AFTER,
    ),
    vaultProblem(504, 'The destination did not answer within `VAULT_PROXY_TIMEOUT_MS`.', 'The destination did not answer within VAULT_PROXY_TIMEOUT_MS.'),
  );

/**
 * Public to the guard, which checks no key here: the invocation authenticates SVC-API-KEY itself when it is sent. In the
 * document the key is optional, not absent (which is what @Public() writes): `security: [{ apiKey: [] }, {}]`.
 * Applied after @Public(), whatever the order of the decorators around it.
 */
const KeyOptional = () =>
  applyDecorators(Public(), (_target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const operation: object | undefined = Reflect.getMetadata(DECORATORS.API_OPERATION, descriptor!.value);
    Reflect.defineMetadata(DECORATORS.API_OPERATION, { ...operation, security: [{ apiKey: [] }, {}] }, descriptor!.value);
  });

const capitalized = (method: InvocationMethod) => method[0] + method.slice(1).toLowerCase();

/**
 * One operation of the invocation: `/proxy/{path}` (operationId invokeProxyGet…) or, without `path`, `/proxy`
 * (invokeProxyRootGet…). Its access too: see KeyOptional.
 */
export const ApiProxyInvocation = (method: InvocationMethod, { withPath }: { withPath: boolean }) =>
  applyDecorators(
    ApiOperation({
      operationId: `invokeProxy${withPath ? '' : 'Root'}${capitalized(method)}`,
      summary: withPath ? `Invoke a proxy with ${method}, appending a path` : `Invoke a proxy with ${method}`,
      description: DESCRIPTION,
    }),
    ...(withPath
      ? [
          ApiParam({
            name: 'path',
            required: true,
            description:
              'Any further path, slashes included, appended to the destination’s path as it is written (percent-encoding kept). Without it, the operation on `/proxy` sends to the destination’s path alone.',
            schema: { type: 'string' },
            example: 'charges',
          }),
        ]
      : []),
    ApiHeader({
      name: 'SVC-PROXY-KEY',
      required: false,
      description: 'Pre-configured: the key of the proxy to invoke (or the `svc-proxy-key` query parameter)',
      schema: { type: 'string' },
    }),
    ApiHeader({
      name: 'SVC-PROXY-URL',
      required: false,
      description: 'Ephemeral: the destination, an http: or https: URL on a host of `VAULT_PROXY_ALLOWED_HOSTS`; needs `SVC-API-KEY`',
      schema: { type: 'string', format: 'uri' },
    }),
    ApiQuery({
      name: 'svc-proxy-key',
      required: false,
      description: 'The proxy key, for a caller that cannot set headers; taken out of the query that is forwarded. The header wins when both are given.',
      schema: { type: 'string' },
    }),
    ...(WITH_BODY.includes(method)
      ? [
          ApiConsumes('*/*'),
          ApiBody({
            required: false,
            description:
              'Forwarded as sent, of any media type, up to 1 MiB. With `SVC-API-KEY`, the detokenization expressions of a JSON or text body are replaced by token data first.',
            schema: {},
            examples: { charge: { summary: 'A card token detokenized on its way to a payment provider', value: INVOKE_PROXY_EXAMPLE } },
          }),
        ]
      : []),
    ApiResponse({
      status: '2XX',
      description:
        'The destination’s answer, as it sent it, after the proxy’s response transforms and what flows back: its status (any, not only 2xx), headers and body. It never carries `SVC-PROXY-ERROR`.',
      content: { '*/*': { schema: {}, example: PROXY_ANSWER_EXAMPLE } },
    }),
    PROBLEMS(),
    KeyOptional(),
  );
