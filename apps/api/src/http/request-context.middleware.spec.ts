import type { Request } from 'express';
import { loggablePath, routeLabel } from './request-context.middleware';

describe('loggablePath', () => {
  it.each([
    ['/tokens/search', '/tokens/search'],
    ['/tokens/0b5f0a7e-8f0c-4c3e-9a55-0b1f1b2c3d4e', '/tokens/0b5f0a7e-8f0c-4c3e-9a55-0b1f1b2c3d4e'],
    ['/applications/0B5F0A7E-8F0C-4C3E-9A55-0B1F1B2C3D4E/regenerate', '/applications/0B5F0A7E-8F0C-4C3E-9A55-0B1F1B2C3D4E/regenerate'],
    ['/permissions/', '/permissions/'],
    ['/metrics', '/metrics'],
    ['/tokens/918-27-3645', '/tokens/:value'],
    ['/tokens/918-27-3645/x', '/tokens/:value/:value'],
    ['/4111111111111111', '/:value'],
    ['/tokens/alice', '/tokens/:value'],
  ])('%s is logged as %s', (path, logged) => {
    expect(loggablePath(path)).toBe(logged);
  });
});

describe('routeLabel', () => {
  it.each<[string, unknown, string]>([
    ['the pattern of the route Express matched', { path: '/tokens/:id' }, '/tokens/:id'],
    ['unrouted when no route matched (or the body was refused first)', undefined, 'unrouted'],
    ['unrouted for a route whose pattern is not a string', { path: /^\/x/ }, 'unrouted'],
  ])('%s', (_title, route, label) => {
    expect(routeLabel({ route, path: '/tokens/918-27-3645' } as unknown as Request)).toBe(label);
  });
});
