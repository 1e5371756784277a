// A query parameter given with no value is a filter left blank by mistake: a 400 naming it, never "no filter".
import { BOOTSTRAP_KEY, startTestApp, TestApp } from '@vault/test-support/test-app';

describe('empty query parameters of the lists', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test?.close());

  const get = (path: string) => test.http().get(path).set('SVC-API-KEY', BOOTSTRAP_KEY);

  it.each([
    ['/logs?entity_type=', 'entity_type'],
    ['/logs?entity_id=', 'entity_id'],
    ['/logs?start_date=', 'start_date'],
    ['/logs?end_date=', 'end_date'],
    ['/logs?entity_type=token&entity_id=', 'entity_id'],
    ['/logs?page=', 'page'],
    ['/logs?size=', 'size'],
    ['/reactor-formulas?name=', 'name'],
    ['/reactor-formulas?name=&page=1', 'name'],
    ['/reactor-formulas?page=', 'page'],
    ['/reactor-formulas?size=', 'size'],
    ['/reactors?name=', 'name'],
    ['/reactors?page=', 'page'],
    ['/reactors?size=', 'size'],
    ['/applications?page=', 'page'],
    ['/applications?size=', 'size'],
    ['/permissions?application_type=', 'application_type'],
  ])('%s is a 400 naming %s', async (path, parameter) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(Object.keys(response.body.errors)).toEqual([parameter]);
  });

  it('says to leave an empty filter out', async () => {
    expect((await get('/logs?entity_id=')).body.errors).toEqual({ entity_id: ['entity_id must not be empty; leave it out for no filter'] });
    expect((await get('/reactors?name=')).body.errors).toEqual({ name: ['name must not be empty; leave it out for no filter'] });
  });

  it.each(['/logs', '/reactor-formulas', '/reactors', '/applications', '/permissions'])('%s without the parameters lists everything', async (path) => {
    expect((await get(path)).status).toBe(200);
  });

  it('still ignores an unknown parameter, empty or not', async () => {
    expect((await get('/reactor-formulas?colour=')).status).toBe(200);
    expect((await get('/logs?colour=')).status).toBe(200);
  });
});
