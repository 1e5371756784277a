// Every route declares its access (a permission, any valid key, or public): the guard refuses a route that declares none.
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ACCESS } from '../../apps/api/src/http/access.decorators';
import { appModule } from '../../apps/api/src/app.module';
import { loadConfig } from '@vault/nest';
import { openApiDocument } from '../../apps/api/src/openapi.document';

describe('route access declarations', () => {
  const module = appModule(loadConfig({ VAULT_DATA_DIR: '/tmp/unused' }));
  const controllers: Array<new (...args: never[]) => object> = Reflect.getMetadata('controllers', module);

  const routes = controllers.flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype)
      .filter((name) => name !== 'constructor')
      .map((name) => controller.prototype[name as keyof object] as unknown as object)
      .filter((handler) => Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
      .map((handler) => ({
        route: `${RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler)]} /${Reflect.getMetadata(PATH_METADATA, controller)}/${Reflect.getMetadata(PATH_METADATA, handler)}`,
        access: Reflect.getMetadata(ACCESS, handler) ?? Reflect.getMetadata(ACCESS, controller),
      })),
  );

  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThanOrEqual(9);
  });

  it('documents every authenticated route in the OpenAPI document', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const missing = routes
      .filter((r) => r.access?.kind !== 'public')
      .map((r) => r.route.replace(/\/+/g, '/').replace(/\/$/, '').replace(/:(\w+)/g, '{$1}'))
      .filter((route) => {
        const [method, path] = route.split(' ');
        return !paths[path]?.[method.toLowerCase()];
      });
    expect(missing).toEqual([]);
  });

  /** `GET /applications/{id}` and its operation in the OpenAPI document, for every route but the public ones. */
  const documented = () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    return routes
      .filter((r) => r.access?.kind !== 'public')
      .map((r) => r.route.replace(/\/+/g, '/').replace(/\/$/, '').replace(/:(\w+)/g, '{$1}'))
      .map((route) => {
        const [method, path] = route.split(' ');
        return { route, path, responses: Object.keys(paths[path]?.[method.toLowerCase()]?.responses ?? {}) };
      });
  };

  it('documents the 429 of every authenticated route (the rate limit applies to every key)', () => {
    expect(documented().filter((r) => !r.responses.includes('429')).map((r) => r.route)).toEqual([]);
  });

  it('documents the 400 (malformed UUID) of every route with an {id} in its path', () => {
    const missing = documented().filter((r) => r.path.includes('{id}') && !r.responses.includes('400'));
    expect(missing.map((r) => r.route)).toEqual([]);
  });

  it.each(routes.map((r) => [r.route, r.access]))('%s declares its access', (_route, access) => {
    expect(access).toEqual(expect.objectContaining({ kind: expect.stringMatching(/^(permission|authenticated|public)$/) }));
  });
});
