import { DomainError, type FieldErrors } from '../shared/errors';
import { iconOf, jpegIcon, pngBytes, pngIcon } from './formula-icon.fixtures';
import { validateFormulaInput } from './reactor-formula.validate';

const MiB = 1024 * 1024;

/** A valid create body as a client sends it: no defaults filled in. */
const aBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Mask Email',
  type: 'private',
  code: 'module.exports = async function (req) { return { raw: req.args }; };',
  configuration: [{ name: 'domain', type: 'string' }],
  request_parameters: [{ name: 'email', type: 'string' }],
  ...overrides,
});

const param = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'string', ...extra });
const setting = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'string', ...extra });
const without = (property: string) => {
  const body = aBody();
  delete body[property];
  return body;
};

const errorsOf = (body: unknown): FieldErrors => {
  try {
    validateFormulaInput(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the body was accepted');
};

describe('validateFormulaInput accepts', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a minimal body', aBody()],
    ['a name of exactly 200 characters', aBody({ name: 'n'.repeat(200) })],
    ['a name of 200 emoji (code points are counted, not UTF-16 units)', aBody({ name: '🔐'.repeat(200) })],
    ['code of exactly 50,000 characters', aBody({ code: 'module.exports = async () => ({}); //'.padEnd(50_000, 'x') })],
    ['a null description and icon', aBody({ description: null, icon: null })],
    ['a PNG icon', aBody({ icon: pngIcon() })],
    ['a JPEG icon declared as image/jpg', aBody({ icon: jpegIcon(64, 'image/jpg') })],
    ['a JPEG icon declared as image/jpeg', aBody({ icon: jpegIcon(64, 'image/jpeg') })],
    ['an icon of exactly 1 MiB', aBody({ icon: pngIcon(MiB) })],
    ['empty configuration and request_parameters', aBody({ configuration: [], request_parameters: [] })],
    ['sibling nested parameters', aBody({ request_parameters: [param('card.number'), param('card.cvc'), param('card.holder.name')] })],
    ['parameters sharing a name prefix without nesting', aBody({ request_parameters: [param('card'), param('cardholder')] })],
  ])('%s', (_title, body) => {
    expect(() => validateFormulaInput(body)).not.toThrow();
  });

  it('returns the input with defaults filled in', () => {
    const body = aBody({
      description: 'Masks the local part',
      configuration: [setting('domain'), setting('mask', { description: 'Mask character' })],
      request_parameters: [param('email'), param('user.age', { type: 'number', optional: true, description: 'Years' })],
    });
    expect(validateFormulaInput(body)).toEqual({
      name: 'Mask Email',
      description: 'Masks the local part',
      type: 'private',
      icon: null,
      code: body.code,
      configuration: [
        { name: 'domain', description: null, type: 'string' },
        { name: 'mask', description: 'Mask character', type: 'string' },
      ],
      request_parameters: [
        { name: 'email', description: null, type: 'string', optional: false },
        { name: 'user.age', description: 'Years', type: 'number', optional: true },
      ],
    });
  });
});

describe('validateFormulaInput rejects', () => {
  it.each<[string, unknown, Record<string, RegExp>]>([
    // name
    ['a missing name', without('name'), { name: /name is required/ }],
    ['a name of 201 characters', aBody({ name: 'n'.repeat(201) }), { name: /at most 200 characters, not 201/ }],
    ['an empty name', aBody({ name: '' }), { name: /must not be empty/ }],
    ['a blank name', aBody({ name: '   ' }), { name: /must not be empty/ }],
    ['a numeric name', aBody({ name: 7 }), { name: /must be a string, not a number/ }],
    // description
    ['a numeric description', aBody({ description: 3 }), { description: /must be a string or null, not a number/ }],
    // type
    ['a missing type', without('type'), { type: /type is required/ }],
    ['an unknown type', aBody({ type: 'public' }), { type: /one of official, private, not "public"/ }],
    ['a boolean type', aBody({ type: true }), { type: /not a boolean/ }],
    // code
    ['missing code', without('code'), { code: /code is required/ }],
    ['empty code', aBody({ code: '' }), { code: /must not be empty/ }],
    ['code of 50,001 characters', aBody({ code: 'x'.repeat(50_001) }), { code: /at most 50000 characters, not 50001/ }],
    ['code given as an array of lines', aBody({ code: ['a', 'b'] }), { code: /must be a string, not an array/ }],
    // icon
    ['an icon of 1 MiB + 1 byte', aBody({ icon: pngIcon(MiB + 1) }), { icon: /at most 1048576 bytes.*1048577/ }],
    ['PNG declared but JPEG bytes', aBody({ icon: iconOf('image/png', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2])) }), { icon: /declared as image\/png but its bytes are a JPEG image/ }],
    ['JPEG declared but PNG bytes', aBody({ icon: iconOf('image/jpeg', pngBytes()) }), { icon: /declared as image\/jpeg but its bytes are a PNG image/ }],
    ['bytes that are no image', aBody({ icon: iconOf('image/png', new TextEncoder().encode('<svg/>')) }), { icon: /not an image of a supported type/ }],
    ['an empty payload', aBody({ icon: 'data:image/png;base64,' }), { icon: /not an image/ }],
    ['a GIF', aBody({ icon: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' }), { icon: /not image\/gif/ }],
    ['an SVG', aBody({ icon: 'data:image/svg+xml;base64,PHN2Zy8+' }), { icon: /not image\/svg\+xml/ }],
    ['a URL instead of a data URL', aBody({ icon: 'https://example.com/icon.png' }), { icon: /base64 data URL/ }],
    ['a data URL that is not base64-encoded', aBody({ icon: 'data:image/png,%89PNG' }), { icon: /image\/png, image\/jpg or image\/jpeg data URL/ }],
    ['base64 with characters outside the alphabet', aBody({ icon: 'data:image/png;base64,iVBOR!0KGgo=' }), { icon: /not valid base64/ }],
    ['base64 with padding in the middle', aBody({ icon: 'data:image/png;base64,iV==Rw0KGgo=' }), { icon: /not valid base64/ }],
    ['base64 with a dangling character', aBody({ icon: 'data:image/png;base64,iVBORw0KG' }), { icon: /not valid base64/ }],
    ['base64url instead of base64', aBody({ icon: 'data:image/png;base64,iVBORw0KGgo_-A' }), { icon: /not valid base64/ }],
    ['a numeric icon', aBody({ icon: 12 }), { icon: /must be a string or null, not a number/ }],
    // configuration
    ['missing configuration', without('configuration'), { configuration: /configuration is required/ }],
    ['configuration as an object', aBody({ configuration: { domain: 'string' } }), { configuration: /must be an array, not an object/ }],
    ['a configuration element that is a string', aBody({ configuration: ['domain'] }), { 'configuration[0]': /must be an object, not a string/ }],
    ['a dotted configuration name', aBody({ configuration: [setting('smtp.host')] }), { 'configuration[0].name': /must not contain "\."/ }],
    ['a duplicate configuration name, on the later element', aBody({ configuration: [setting('a'), setting('b'), setting('a')] }), { 'configuration[2].name': /"a" is already declared by configuration\[0\]/ }],
    ['an empty configuration name', aBody({ configuration: [setting('')] }), { 'configuration[0].name': /must not be empty/ }],
    ['a configuration element without a name', aBody({ configuration: [{ type: 'string' }] }), { 'configuration[0].name': /is required/ }],
    ['a configuration type outside string|boolean|number', aBody({ configuration: [setting('a', { type: 'object' })] }), { 'configuration[0].type': /one of string, boolean, number, not "object"/ }],
    ['a configuration element without a type', aBody({ configuration: [{ name: 'a' }] }), { 'configuration[0].type': /is required/ }],
    ['a numeric configuration description', aBody({ configuration: [setting('a', { description: 1 })] }), { 'configuration[0].description': /not a number/ }],
    ['optional on a configuration element', aBody({ configuration: [setting('a', { optional: true })] }), { 'configuration[0].optional': /configuration\[0\]\.optional is not an allowed property/ }],
    // request_parameters
    ['missing request_parameters', without('request_parameters'), { request_parameters: /is required/ }],
    ['request_parameters as a string', aBody({ request_parameters: 'email' }), { request_parameters: /must be an array, not a string/ }],
    ['a request parameter that is null', aBody({ request_parameters: [param('a'), null] }), { 'request_parameters[1]': /must be an object, not null/ }],
    ['a leaf that is also a parent (a, then a.b)', aBody({ request_parameters: [param('a'), param('a.b')] }), { 'request_parameters[1].name': /"a\.b" reaches inside "a", which request_parameters\[0\] declares as a value/ }],
    ['a leaf that is also a parent (a.b.c, then a.b)', aBody({ request_parameters: [param('a.b.c'), param('x'), param('a.b')] }), { 'request_parameters[2].name': /"a\.b" is a value, but request_parameters\[0\] declares "a\.b\.c" inside it/ }],
    ['an empty middle segment (a..b)', aBody({ request_parameters: [param('a..b')] }), { 'request_parameters[0].name': /dotted path of non-empty segments/ }],
    ['an empty first segment (.a)', aBody({ request_parameters: [param('.a')] }), { 'request_parameters[0].name': /dotted path/ }],
    ['an empty last segment (a.)', aBody({ request_parameters: [param('a.')] }), { 'request_parameters[0].name': /dotted path/ }],
    ['an empty parameter name', aBody({ request_parameters: [param('')] }), { 'request_parameters[0].name': /must not be empty/ }],
    ['a duplicate parameter name, on the later element', aBody({ request_parameters: [param('card.number'), param('card.number')] }), { 'request_parameters[1].name': /already declared by request_parameters\[0\]/ }],
    ['a numeric parameter name', aBody({ request_parameters: [param('a'), param('b'), { name: 3, type: 'string' }] }), { 'request_parameters[2].name': /must be a string, not a number/ }],
    ['a parameter type outside string|boolean|number', aBody({ request_parameters: [param('a', { type: 'array' })] }), { 'request_parameters[0].type': /not "array"/ }],
    ['optional given as a string', aBody({ request_parameters: [param('a'), param('b', { optional: 'yes' })] }), { 'request_parameters[1].optional': /must be a boolean, not a string/ }],
    ['optional given as null', aBody({ request_parameters: [param('a', { optional: null })] }), { 'request_parameters[0].optional': /must be a boolean, not null/ }],
    ['optional given as 0', aBody({ request_parameters: [param('a', { optional: 0 })] }), { 'request_parameters[0].optional': /not a number/ }],
    ['an unknown property on a parameter', aBody({ request_parameters: [param('a', { required: true })] }), { 'request_parameters[0].required': /request_parameters\[0\]\.required is not an allowed property/ }],
    // unknown top-level properties
    ['status, which the service sets', aBody({ status: 'verified' }), { status: /status is not an allowed property\. The service sets status/ }],
    ['id, which the service generates', aBody({ id: 'f0f0f0f0-0000-4000-8000-000000000001' }), { id: /generates the id/ }],
    ['an unknown top-level property', aBody({ runtime: 'node16' }), { runtime: /runtime is not an allowed property/ }],
    // not an object at all
    ['an array body', [aBody()], { body: /must be a JSON object, not an array/ }],
    ['a null body', null, { body: /not null/ }],
    ['a string body', 'name=x', { body: /not a string/ }],
  ])('%s', (_title, body, expected) => {
    const errors = errorsOf(body);
    expect(Object.keys(errors).sort()).toEqual(Object.keys(expected).sort());
    for (const [field, message] of Object.entries(expected)) {
      expect(errors[field]).toEqual([expect.stringMatching(message)]);
    }
  });

  it('reports every violation of a body in one error', () => {
    const errors = errorsOf({
      name: 'n'.repeat(201),
      type: 'shared',
      code: '',
      icon: 'data:image/png;base64,???',
      configuration: [setting('a.b'), { name: 'c', type: 'date', default: 1 }],
      request_parameters: [param('x'), param('x.y', { optional: 'no' })],
      status: 'verified',
    });
    expect(Object.keys(errors).sort()).toEqual(
      [
        'name',
        'type',
        'code',
        'icon',
        'configuration[0].name',
        'configuration[1].type',
        'configuration[1].default',
        'request_parameters[1].name',
        'request_parameters[1].optional',
        'status',
      ].sort(),
    );
  });
});
