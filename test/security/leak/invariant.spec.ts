// The leak property's invariant (invariant.ts) on hand-made responses: it fails on what the application may not know,
// and only on that.
import { accrue, AppModel, learnFromRequest, newAppModel } from './knowledge';
import { AppSpec, newVersion, TokenModel, TokenType } from './model';
import { leakIn } from './invariant';
import type { Response } from './windows';

const SSN = '457-82-9163';
const MASKED = 'XXX-XX-9163';
const NOTE = { k: 'bq8vz2wmdh4g', j: 'hd5pq7cvbz3w' };

const aToken = (id: string, type: TokenType, data: unknown, masked: string | null, containers = ['/pii/high/']): TokenModel => {
  const version = newVersion(type, data, []);
  if (masked) version.masks.add(masked);
  return {
    id,
    type,
    alive: true,
    containers,
    mask: masked ? '{{ data | reveal_last: 4 }}' : null,
    search_indexes: [],
    fingerprint_expression: '{{ data }}',
    fingerprint: 'F',
    data,
    masked,
    maskTainted: false,
    versions: [version],
    searchValues: new Set(),
    fingerprintInput: null,
    opaqueFingerprint: null,
    caps: new Map(),
  };
};
const anApp = (transform: 'reveal' | 'mask' | 'redact' | null): AppModel => {
  const spec: AppSpec = transform
    ? { permissions: ['token:read'], rules: [{ priority: 1, container: '/', transform, permissions: ['token:read'] }] }
    : { permissions: ['token:use'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:use'] }] };
  return newAppModel(0, spec, 'app', 'key');
};
const json = (body: unknown): Response => ({ text: JSON.stringify(body), body, headers: {} });

describe('the leak invariant', () => {
  const ssn = aToken('00000000-0000-4000-8000-000000000001', 'social_security_number', SSN, MASKED);
  const note = aToken('00000000-0000-4000-8000-000000000002', 'token', NOTE, null, ['/general/']);
  const tokens = [ssn, note];
  const check = (app: AppModel, response: Response, supplied: string[] = []) => {
    accrue([app], tokens);
    const levels = new Map(tokens.map((t) => [t.id, 0 as const]));
    return leakIn(tokens, app, response, levels, new Set(supplied));
  };

  it.each<[string, boolean, 'reveal' | 'mask' | 'redact' | null, unknown]>([
    ['a mask view, given the mask', false, 'mask', { raw: MASKED }],
    ['a mask view, given the digits', true, 'mask', { raw: '457829163' }],
    ['a mask view, given five characters of the data', true, 'mask', { raw: 'x 57-82 y' }],
    ['a mask view, given the last four only', false, 'mask', { raw: 'ends 9163' }],
    ['a redact view, given the mask', true, 'redact', { raw: MASKED }],
    ['token:use only, given an object leaf upper-cased', true, null, { raw: 'prefix BQ8VZ suffix' }],
    ['token:use only, given the object base64-encoded', true, null, { raw: Buffer.from(JSON.stringify(NOTE)).toString('base64') }],
    ['a reveal view, given everything', false, 'reveal', { raw: [SSN, NOTE] }],
  ])('%s: a leak is %s', (_label, leaks, transform, body) => {
    expect(check(anApp(transform), json(body)) !== null).toBe(leaks);
  });

  it('no news in what the application sent itself', () => {
    const app = anApp(null);
    learnFromRequest(app, { data: NOTE });
    expect(check(app, json({ raw: NOTE }))).toBeNull();
  });

  it('a token view showing the data to a mask view is a leak, the mask is not', () => {
    const view = { id: ssn.id, type: ssn.type, containers: ssn.containers };
    expect(check(anApp('mask'), json({ ...view, data: MASKED }))).toBeNull();
    expect(check(anApp('mask'), json({ ...view, data: 'XXX-XX-916X' }))).toMatch(/shows its data/);
  });
});
