// Every route declares its access (a permission, any valid key, or public): the guard refuses a route that declares none.
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ACCESS } from '../../apps/api/src/http/access.decorators';
import { appModule } from '../../apps/api/src/app.module';
import { loadConfig } from '@vault/nest';

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

  it.each(routes.map((r) => [r.route, r.access]))('%s declares its access', (_route, access) => {
    expect(access).toEqual(expect.objectContaining({ kind: expect.stringMatching(/^(permission|authenticated|public)$/) }));
  });
});
