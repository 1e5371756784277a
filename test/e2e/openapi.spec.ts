// The OpenAPI document at /openapi.json, generated from the controllers' and DTOs' decorators: what it says of every
// route, and that every request example in it is accepted by the service as it stands. Also / and the /docs page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { PRODUCT_NAME } from '../../apps/api/src/api-docs';
import { ACCESS, type Access } from '../../apps/api/src/http/access.decorators';
import { EXAMPLE_CARD_TOKEN } from '../../apps/api/src/detokenize/detokenize.dto';
import { CREATE_PROXY_EXAMPLE } from '../../apps/api/src/proxies/proxies.dto';
import { EXAMPLE_PROXIED_CARD_TOKEN } from '../../apps/api/src/proxies/proxy-invocation.dto';
import { EXAMPLE_EMAIL_TOKEN } from '../../apps/api/src/reactors/reactors.dto';
import { CREATE_WEBHOOK_EXAMPLE } from '../../apps/api/src/webhooks/webhooks.dto';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';
import { startDestination, type Destination } from './proxy-invocation/destinations';

type Json = Record<string, any>;
interface Operation {
  /** `POST /tokens/{id}` */
  name: string;
  method: string;
  path: string;
  operation: Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TAGS = ['Tokens', 'Search', 'Tokenize', 'Detokenize', 'Applications', 'Permissions', 'Tenants', 'Reactor formulas', 'Reactors', 'Proxies', 'Webhooks', 'Audit log', 'Health', 'Metrics'];
/**
 * Served routes the document leaves out on purpose (@ApiExcludeEndpoint): the proxy invocation's fallback for methods
 * other than GET, POST, PUT, PATCH and DELETE, which only answers 405.
 */
const UNDOCUMENTED = ['ALL /proxy', 'ALL /proxy/{path}'];
/**
 * Paths whose API key is optional: the proxy invocation is public to the guard and checks SVC-API-KEY itself, needed
 * unless the proxy has require_auth false. So neither rule for access applies to it: its security is "the key, or none"
 * (`[{ apiKey: [] }, {}]`), and it answers 401, 403 and 429 of its own.
 */
const KEY_OPTIONAL = ['/proxy', '/proxy/{path}'];
const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
const MASK_EMAIL = JSON.parse(readFileSync(join(__dirname, '../../formulas/official/mask-email.json'), 'utf8'));
const { version } = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8'));

/**
 * What an example request needs: whose key sends it, the `{id}` or `{path}` of its path, real ids for the ids its body
 * names, and headers set after the others (a proxy invocation's SVC-PROXY-KEY, and a Content-Type for its body of any
 * media type).
 */
interface Setup {
  key: string;
  id?: string;
  path?: string;
  ids?: Record<string, string>;
  headers?: Record<string, string>;
}

describe('the OpenAPI document', () => {
  let test: TestApp;
  let doc: Json;
  let operations: Operation[];
  let holderKey: string;
  let echo: Destination;

  beforeAll(async () => {
    // The proxy examples name this host; nothing is sent there. The invocation examples invoke proxies to `echo`, a
    // local server that answers 200 with what it received.
    const proxyHost = new URL(CREATE_PROXY_EXAMPLE.destination_url).host;
    echo = await startDestination();
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '1000000', VAULT_PROXY_ALLOWED_HOSTS: `${proxyHost},${echo.host}`, VAULT_WEBHOOK_ALLOWED_HOSTS: echo.host });
    const response = await test.http().get('/openapi.json');
    expect(response.status).toBe(200);
    doc = response.body;
    operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ name: `${method.toUpperCase()} ${path}`, method, path, operation: item[method] })),
    );
    // Tokens are written by an application that reveals every token to itself; the examples' reactor runs Mask Email.
    holderKey = (
      await createApplication(test, {
        name: 'openapi examples',
        type: 'private',
        permissions: TOKEN_PERMISSIONS,
        rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: TOKEN_PERMISSIONS }],
      })
    ).key;
    await test.app.get(VaultBus).execute(new ImportOfficialFormulaCommand(MASK_EMAIL, { type: 'operator', id: 'test' }, 'test'));
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  /**
   * Every route of every controller, as the document writes it (`GET /tokens/{id}`, `*path` as `{path}`), one for each
   * path of a handler that has several, with its access declaration.
   */
  const served = () =>
    [...test.app.get(ModulesContainer).values()].flatMap((module) =>
      [...module.controllers.values()].flatMap(({ metatype }) => {
        const controller = metatype as unknown as { prototype: Record<string, object> };
        const base: string = Reflect.getMetadata(PATH_METADATA, controller) ?? '';
        return Object.getOwnPropertyNames(controller.prototype)
          .map((name) => controller.prototype[name])
          .filter((handler) => typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
          .flatMap((handler) => {
            const access: Access = Reflect.getMetadata(ACCESS, handler);
            const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler)];
            return [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat().map((route) => {
              const path = `/${base}/${route}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1').replace(/[:*](\w+)/g, '{$1}');
              return { name: `${method} ${path}`, access };
            });
          });
      }),
    );

  it('is OpenAPI 3.1 titled with the product name, at the package version, with a description and the API key scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Selfhosted Token Vault', version });
    expect(PRODUCT_NAME).toBe(doc.info.title);
    expect(doc.info.description).toMatch(/SVC-API-KEY/);
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'SVC-API-KEY' }));
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it('lists its tags in order, each described, and files every operation under exactly one of them', () => {
    expect(doc.tags.map((tag: Json) => tag.name)).toEqual(TAGS);
    expect(doc.tags.filter((tag: Json) => !tag.description)).toEqual([]);
    const untagged = operations.filter(({ operation }) => operation.tags?.length !== 1 || !TAGS.includes(operation.tags[0]));
    expect(untagged.map((o) => `${o.name} ${JSON.stringify(o.operation.tags)}`)).toEqual([]);
    expect(TAGS.filter((tag) => !operations.some(({ operation }) => operation.tags[0] === tag))).toEqual([]);
  });

  it('gives every operation a unique camelCase operationId and a summary', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][a-zA-Z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ operation }) => !operation.summary).map((o) => o.name)).toEqual([]);
  });

  it('documents every route the controllers serve, health and metrics included, and no other', () => {
    const routes = served()
      .map((r) => r.name)
      .filter((name) => !UNDOCUMENTED.includes(name));
    expect(routes.length).toBeGreaterThan(30);
    expect(operations.map((o) => o.name).sort()).toEqual([...new Set(routes)].sort());
    expect(doc.paths['/docs']).toBeUndefined();
    expect(doc.paths['/']).toBeUndefined();
  });

  it("documents what each route's access declaration implies: no key on public routes, the guard's errors on the others", () => {
    const access = new Map(served().map((r) => [r.name, r.access]));
    expect(UNDOCUMENTED.filter((name) => !access.has(name))).toEqual([]);
    const wrong = operations.flatMap(({ name, path, operation }) => {
      const declared = access.get(name)!;
      const codes = Object.keys(operation.responses);
      const problems: string[] = [];
      if (KEY_OPTIONAL.includes(path)) {
        if (declared.kind !== 'public') problems.push('it checks its key itself: public to the guard');
        if (JSON.stringify(operation.security) !== JSON.stringify([{ apiKey: [] }, {}])) problems.push('security must be [{ apiKey: [] }, {}]');
        for (const code of ['401', '429']) if (!codes.includes(code)) problems.push(`no ${code}`);
      } else if (declared.kind === 'public') {
        if (!Array.isArray(operation.security) || operation.security.length !== 0) problems.push('security must be []');
        if (codes.some((code) => ['401', '403', '429'].includes(code))) problems.push('a public route answers no 401, 403 or 429');
      } else {
        if (operation.security !== undefined) problems.push('a keyed route takes the document’s security');
        for (const code of ['401', '429']) if (!codes.includes(code)) problems.push(`no ${code}`);
        if (declared.kind === 'permission' && !codes.includes('403')) problems.push('no 403');
        if (declared.kind === 'permission' && operation['x-permission'] !== declared.permission) problems.push('x-permission');
      }
      return problems.map((problem) => `${name}: ${problem}`);
    });
    expect(wrong).toEqual([]);
  });

  it('documents the 400 of every {id} and every query, and the 400, 413 and 415 of every body', () => {
    const missing = operations.flatMap(({ name, path, operation }) => {
      const codes = Object.keys(operation.responses);
      const needed = [
        ...(path.includes('{id}') || operation.parameters?.some((p: Json) => p.in === 'query') ? ['400'] : []),
        ...(operation.requestBody ? ['400', '413', '415'] : []),
      ];
      return needed.filter((code) => !codes.includes(code)).map((code) => `${name}: ${code}`);
    });
    expect(missing).toEqual([]);
    const idParameters = operations.filter((o) => o.path.includes('{id}')).map((o) => o.operation.parameters.find((p: Json) => p.name === 'id'));
    expect(idParameters.every((p) => p.in === 'path' && p.required && p.schema.format === 'uuid')).toBe(true);
  });

  it('answers errors as problem details of the one Problem schema, with an example, and success with a 2xx', () => {
    expect(doc.components.schemas.Problem).toMatchObject({ type: 'object', required: ['type', 'title', 'status'] });
    const wrong = operations.flatMap(({ name, operation }) =>
      Object.entries(operation.responses as Record<string, Json>).flatMap(([code, response]) => {
        if (!response.description) return [`${name} ${code}: no description`];
        if (!/^[45]/.test(code)) return [];
        // Not ready is an answer of the health routes, not an error: its body is the readiness report.
        if (operation.tags[0] === 'Health' && code === '503') return [];
        const media = response.content?.['application/problem+json'];
        return media?.schema?.$ref === '#/components/schemas/Problem' && media.example?.status === Number(code) ? [] : [`${name} ${code}`];
      }),
    );
    expect(wrong).toEqual([]);
    expect(operations.filter(({ operation }) => !Object.keys(operation.responses).some((code) => /^2/.test(code))).map((o) => o.name)).toEqual([]);
  });

  it('has a request example for every body, and an example for every 2xx answer that has a body', () => {
    const missing = operations.flatMap(({ name, operation }) => {
      const bodies = Object.entries((operation.requestBody?.content ?? {}) as Record<string, Json>)
        .filter(([, media]) => Object.keys(media.examples ?? {}).length === 0 && media.example === undefined)
        .map(([type]) => `${name}: request ${type}`);
      const answers = Object.entries(operation.responses as Record<string, Json>)
        .filter(([code]) => /^2/.test(code))
        .flatMap(([code, response]) =>
          Object.entries((response.content ?? {}) as Record<string, Json>)
            .filter(([, media]) => media.example === undefined && media.examples === undefined)
            .map(([type]) => `${name}: ${code} ${type}`),
        );
      return [...bodies, ...answers];
    });
    expect(missing).toEqual([]);
  });

  it('uses no keyword of OpenAPI 3.0 only: no nullable, no single example inside a schema', () => {
    const found: string[] = [];
    const walk = (node: unknown, path: string, inSchema: boolean): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}[${i}]`, inSchema));
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        // Examples are data: whatever keys they hold are not keywords.
        if (key === 'example' || key === 'examples') {
          if (key === 'example' && inSchema) found.push(`${path}.example`);
          continue;
        }
        if (key === 'nullable') found.push(`${path}.nullable`);
        walk(value, `${path}.${key}`, inSchema || key === 'schema' || key === 'schemas');
      }
    };
    walk(doc, '$', false);
    expect(found).toEqual([]);
  });

  /**
   * The operations whose request examples are sent: who sends them, and what real ids stand for the ids they name.
   * Every operation with a body example must be here.
   */
  const SETUPS: Record<string, () => Promise<Setup>> = {
    createToken: async () => ({ key: holderKey }),
    searchTokens: async () => ({ key: holderKey }),
    updateToken: async () => ({ key: holderKey, id: await made(holderKey, '/tokens', { type: 'social_security_number', data: '078-05-1120', metadata: { customer: 'acme' } }) }),
    tokenize: async () => ({ key: holderKey }),
    tokenizeUnderTokens: async () => ({ key: holderKey }),
    detokenize: async () => ({
      key: holderKey,
      ids: { [EXAMPLE_CARD_TOKEN]: await made(holderKey, '/tokens', { type: 'token', data: { number: '4242424242424242', expiry: '12/29' } }) },
    }),
    createApplication: async () => ({ key: BOOTSTRAP_KEY }),
    updateApplication: async () => ({ key: BOOTSTRAP_KEY, id: (await createApplication(test, { name: 'to replace', type: 'private', permissions: ['token:read'] })).id }),
    renameOwnTenant: async () => ({ key: BOOTSTRAP_KEY }),
    createReactorFormula: async () => ({ key: BOOTSTRAP_KEY }),
    updateReactorFormula: async () => ({ key: BOOTSTRAP_KEY, id: await made(BOOTSTRAP_KEY, '/reactor-formulas', FORMULA) }),
    updateReactorFormulaByDeprecatedPath: async () => ({ key: BOOTSTRAP_KEY, id: await made(BOOTSTRAP_KEY, '/reactor-formulas', FORMULA) }),
    createReactor: async () => ({ key: BOOTSTRAP_KEY }),
    updateReactor: async () => ({ key: BOOTSTRAP_KEY, id: await made(BOOTSTRAP_KEY, '/reactors', MASK_EMAIL_REACTOR) }),
    patchReactor: async () => ({ key: BOOTSTRAP_KEY, id: await made(BOOTSTRAP_KEY, '/reactors', MASK_EMAIL_REACTOR) }),
    createProxy: async () => ({ key: BOOTSTRAP_KEY }),
    updateProxy: async () => ({ key: BOOTSTRAP_KEY, id: await made(BOOTSTRAP_KEY, '/proxies', CREATE_PROXY_EXAMPLE) }),
    patchProxy: async () => ({ key: BOOTSTRAP_KEY, id: await made(BOOTSTRAP_KEY, '/proxies', CREATE_PROXY_EXAMPLE) }),
    // The examples' receiver stands for the local echo, so that no delivery leaves this machine.
    createWebhook: async () => ({ key: BOOTSTRAP_KEY, ids: { [CREATE_WEBHOOK_EXAMPLE.url]: echo.url('/hooks') } }),
    updateWebhook: async () => ({
      key: BOOTSTRAP_KEY,
      id: await made(BOOTSTRAP_KEY, '/webhooks', { ...CREATE_WEBHOOK_EXAMPLE, url: echo.url('/hooks'), enabled: false }),
      ids: { [CREATE_WEBHOOK_EXAMPLE.url]: echo.url('/hooks') },
    }),
    invokeReactor: async () => ({
      key: holderKey,
      id: await made(BOOTSTRAP_KEY, '/reactors', MASK_EMAIL_REACTOR),
      ids: { [EXAMPLE_EMAIL_TOKEN]: await made(holderKey, '/tokens', { type: 'token', data: 'ada.lovelace@example.com' }) },
    }),
    invokeProxyPost: () => invocation('charges'),
    invokeProxyPut: () => invocation('charges'),
    invokeProxyPatch: () => invocation('charges'),
    invokeProxyRootPost: () => invocation(),
    invokeProxyRootPut: () => invocation(),
    invokeProxyRootPatch: () => invocation(),
  };
  const FORMULA = {
    name: 'To replace',
    type: 'private',
    code: 'module.exports = async function () { return { raw: {} }; };',
    configuration: [],
    request_parameters: [],
  };
  const MASK_EMAIL_REACTOR = { name: 'To change', formula: { id: MASK_EMAIL.id }, configuration: { mask_character: '*', reveal_domain: true } };

  /**
   * A proxy to `echo`, invoked (at `path`, if given) by the holder, which may use and read the card token the example's
   * expression names: the destination receives the card number, and its answer comes back as it sent it.
   */
  const invocation = async (path?: string): Promise<Setup> => {
    const proxy = await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'Echo', destination_url: echo.url('/v1') });
    if (proxy.status !== 201) throw new Error(`set-up: POST /proxies: ${proxy.status} ${proxy.text}`);
    return {
      key: holderKey,
      path,
      ids: { [EXAMPLE_PROXIED_CARD_TOKEN]: await made(holderKey, '/tokens', { type: 'card_number', data: '4242424242424242' }) },
      headers: { 'SVC-PROXY-KEY': proxy.body.key, 'Content-Type': 'application/json' },
    };
  };

  const made = async (key: string, path: string, body: object): Promise<string> => {
    const response = await asKey(test, key).post(path, body);
    if (response.status !== 201) throw new Error(`set-up: POST ${path}: ${response.status} ${response.text}`);
    return response.body.id;
  };

  /** Each request example of the document: its operation, media type and value. */
  const requestExamples = () =>
    operations.flatMap(({ name, method, path, operation }) =>
      Object.entries((operation.requestBody?.content ?? {}) as Record<string, Json>).flatMap(([mediaType, media]) =>
        Object.entries((media.examples ?? {}) as Record<string, Json>).map(([exampleName, example]) => ({
          title: `${operation.operationId} (${name}, ${mediaType}, example "${exampleName}")`,
          operationId: operation.operationId as string,
          method,
          path,
          mediaType,
          value: example.value,
          responses: operation.responses as Record<string, Json>,
        })),
      ),
    );

  it('has a set-up for every operation with a request example, and no other', () => {
    expect([...new Set(requestExamples().map((e) => e.operationId))].sort()).toEqual(Object.keys(SETUPS).sort());
  });

  it('finds the service accepting every request example as it stands (2xx, a documented answer, documented fields)', async () => {
    const refused: string[] = [];
    for (const example of requestExamples()) {
      const setup = await SETUPS[example.operationId]();
      let body = JSON.stringify(example.value);
      for (const [placeholder, real] of Object.entries(setup.ids ?? {})) body = body.split(placeholder).join(real);
      const path = example.path.replace('{id}', setup.id ?? 'no-id-given').replace('{path}', setup.path ?? 'no-path-given');
      const response = await test
        .http()
        [example.method as 'post'](path)
        .set('SVC-API-KEY', setup.key)
        .set('Content-Type', example.mediaType)
        .set(setup.headers ?? {})
        .send(body);
      if (response.status < 200 || response.status > 299) {
        refused.push(`${example.title}: ${response.status} ${response.text}`);
        continue;
      }
      // Listed by its code, or by its range (`2XX`: the destination's answer to a proxy invocation).
      const documented = example.responses[String(response.status)] ?? example.responses[`${String(response.status)[0]}XX`];
      if (!documented) refused.push(`${example.title}: answered ${response.status}, which the document does not list`);
      const undocumented = undocumentedFields(documented?.content?.['application/json']?.schema, response.body);
      if (undocumented.length > 0) refused.push(`${example.title}: answered fields the schema does not name: ${undocumented.join(', ')}`);
    }
    expect(refused).toEqual([]);
  });

  /** The top-level fields of `body` that the answer's schema, when it is a component with properties, does not name. */
  const undocumentedFields = (schema: Json | undefined, body: unknown): string[] => {
    const name = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
    const properties = name ? doc.components.schemas[name]?.properties : undefined;
    if (!properties || typeof body !== 'object' || body === null) return [];
    return Object.keys(body).filter((key) => !(key in properties));
  };

  it('redirects GET / to the web console', async () => {
    const response = await test.http().get('/');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/console');
  });

  it('titles the docs page with the product name', async () => {
    const page = await test.http().get('/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<title>Selfhosted Token Vault<\/title>/);
  });
});
