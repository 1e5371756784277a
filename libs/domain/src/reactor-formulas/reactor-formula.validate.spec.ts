import { DomainError, type FieldErrors } from '../shared/errors';
import { iconOf, jpegIcon, pngBytes, pngIcon } from './formula-icon.builders';
import {
  MAX_CONFIGURATION_ELEMENTS,
  MAX_ELEMENT_DESCRIPTION_LENGTH,
  MAX_ELEMENT_NAME_LENGTH,
  MAX_FORMULA_DESCRIPTION_LENGTH,
  MAX_REQUEST_PARAMETERS,
  validateFormulaInput,
} from './reactor-formula.validate';

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
const settings = (count: number) => Array.from({ length: count }, (_, i) => setting(`s${i}`));
const params = (count: number, prefix = 'p') => Array.from({ length: count }, (_, i) => param(`${prefix}${i}`));
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
    [`${MAX_CONFIGURATION_ELEMENTS} configuration elements`, aBody({ configuration: settings(MAX_CONFIGURATION_ELEMENTS) })],
    [`${MAX_REQUEST_PARAMETERS} request parameters`, aBody({ request_parameters: params(MAX_REQUEST_PARAMETERS) })],
    [`${MAX_REQUEST_PARAMETERS} deeply dotted request parameters`, aBody({ request_parameters: params(MAX_REQUEST_PARAMETERS, 'a.b.c.d.e.f.g.h') })],
    ['a description of 2,000 characters', aBody({ description: 'd'.repeat(MAX_FORMULA_DESCRIPTION_LENGTH) })],
    ['element descriptions of 2,000 emoji', aBody({ configuration: [setting('a', { description: '🔐'.repeat(MAX_ELEMENT_DESCRIPTION_LENGTH) })], request_parameters: [param('b', { description: '🔐'.repeat(MAX_ELEMENT_DESCRIPTION_LENGTH) })] })],
    ['element names of 200 characters', aBody({ configuration: [setting('c'.repeat(MAX_ELEMENT_NAME_LENGTH))], request_parameters: [param('p.'.repeat(99) + 'pp')] })],
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
    ['an unknown type', aBody({ type: 'public' }), { type: /one of official, private, not another string\.$/ }],
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
    ['a GIF', aBody({ icon: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' }), { icon: /^icon must be an image\/png, image\/jpg or image\/jpeg data URL\.$/ }],
    ['an SVG', aBody({ icon: 'data:image/svg+xml;base64,PHN2Zy8+' }), { icon: /^icon must be an image\/png, image\/jpg or image\/jpeg data URL\.$/ }],
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
    ['a duplicate configuration name, on the later element', aBody({ configuration: [setting('a'), setting('b'), setting('a')] }), { 'configuration[2].name': /^configuration\[2\]\.name is already declared by configuration\[0\]\.$/ }],
    ['an empty configuration name', aBody({ configuration: [setting('')] }), { 'configuration[0].name': /must not be empty/ }],
    ['a configuration element without a name', aBody({ configuration: [{ type: 'string' }] }), { 'configuration[0].name': /is required/ }],
    ['a configuration type outside string|boolean|number', aBody({ configuration: [setting('a', { type: 'object' })] }), { 'configuration[0].type': /one of string, boolean, number, not another string\.$/ }],
    ['a configuration element without a type', aBody({ configuration: [{ name: 'a' }] }), { 'configuration[0].type': /is required/ }],
    ['a numeric configuration description', aBody({ configuration: [setting('a', { description: 1 })] }), { 'configuration[0].description': /not a number/ }],
    ['optional on a configuration element', aBody({ configuration: [setting('a', { optional: true })] }), { 'configuration[0].optional': /configuration\[0\]\.optional is not an allowed property/ }],
    // request_parameters
    ['missing request_parameters', without('request_parameters'), { request_parameters: /is required/ }],
    ['request_parameters as a string', aBody({ request_parameters: 'email' }), { request_parameters: /must be an array, not a string/ }],
    ['a request parameter that is null', aBody({ request_parameters: [param('a'), null] }), { 'request_parameters[1]': /must be an object, not null/ }],
    ['a leaf that is also a parent (a, then a.b)', aBody({ request_parameters: [param('a'), param('a.b')] }), { 'request_parameters[1].name': /^request_parameters\[1\]\.name reaches inside request_parameters\[0\]\.name, which is declared as a value/ }],
    ['a leaf that is also a parent (a.b.c, then a.b)', aBody({ request_parameters: [param('a.b.c'), param('x'), param('a.b')] }), { 'request_parameters[2].name': /^request_parameters\[2\]\.name is a value, but request_parameters\[0\]\.name is declared inside it/ }],
    ['an empty middle segment (a..b)', aBody({ request_parameters: [param('a..b')] }), { 'request_parameters[0].name': /dotted path of non-empty segments/ }],
    ['an empty first segment (.a)', aBody({ request_parameters: [param('.a')] }), { 'request_parameters[0].name': /dotted path/ }],
    ['an empty last segment (a.)', aBody({ request_parameters: [param('a.')] }), { 'request_parameters[0].name': /dotted path/ }],
    ['an empty parameter name', aBody({ request_parameters: [param('')] }), { 'request_parameters[0].name': /must not be empty/ }],
    ['a duplicate parameter name, on the later element', aBody({ request_parameters: [param('card.number'), param('card.number')] }), { 'request_parameters[1].name': /already declared by request_parameters\[0\]/ }],
    ['a numeric parameter name', aBody({ request_parameters: [param('a'), param('b'), { name: 3, type: 'string' }] }), { 'request_parameters[2].name': /must be a string, not a number/ }],
    ['a parameter type outside string|boolean|number', aBody({ request_parameters: [param('a', { type: 'array' })] }), { 'request_parameters[0].type': /not another string\.$/ }],
    ['optional given as a string', aBody({ request_parameters: [param('a'), param('b', { optional: 'yes' })] }), { 'request_parameters[1].optional': /must be a boolean, not a string/ }],
    ['optional given as null', aBody({ request_parameters: [param('a', { optional: null })] }), { 'request_parameters[0].optional': /must be a boolean, not null/ }],
    ['optional given as 0', aBody({ request_parameters: [param('a', { optional: 0 })] }), { 'request_parameters[0].optional': /not a number/ }],
    ['an unknown property on a parameter', aBody({ request_parameters: [param('a', { required: true })] }), { 'request_parameters[0].required': /request_parameters\[0\]\.required is not an allowed property/ }],
    ['an element description of 2,001 characters', aBody({ configuration: [setting('a', { description: 'd'.repeat(2_001) })] }), { 'configuration[0].description': /at most 2000 characters, not 2001/ }],
    ['a parameter description of 2,001 characters', aBody({ request_parameters: [param('a', { description: 'd'.repeat(2_001) })] }), { 'request_parameters[0].description': /at most 2000 characters, not 2001/ }],
    ['a configuration name of 201 characters', aBody({ configuration: [setting('c'.repeat(201))] }), { 'configuration[0].name': /at most 200 characters, not 201/ }],
    ['a parameter name of 201 characters', aBody({ request_parameters: [param('p'.repeat(201))] }), { 'request_parameters[0].name': /at most 200 characters, not 201/ }],
    ['a leaf declared long after its parent (a.b.c, …, a)', aBody({ request_parameters: [param('a.b.c'), ...params(150), param('a')] }), { 'request_parameters[151].name': /^request_parameters\[151\]\.name is a value, but request_parameters\[0\]\.name is declared inside it/ }],
    ['a parent declared long after its leaf (a.b, …, a.b.c.d)', aBody({ request_parameters: [param('a.b'), ...params(150), param('a.b.c.d')] }), { 'request_parameters[151].name': /reaches inside request_parameters\[0\]\.name/ }],
    // list maxima, checked before any element is read (so the elements' own errors are not reported)
    [`${MAX_CONFIGURATION_ELEMENTS + 1} configuration elements`, aBody({ configuration: [...settings(MAX_CONFIGURATION_ELEMENTS), 7] }), { configuration: /^configuration must hold at most 100 elements, not 101\.$/ }],
    [`${MAX_REQUEST_PARAMETERS + 1} request parameters`, aBody({ request_parameters: [...params(MAX_REQUEST_PARAMETERS), 7] }), { request_parameters: /^request_parameters must hold at most 200 elements, not 201\.$/ }],
    ['a description of 2,001 characters', aBody({ description: 'd'.repeat(2_001) }), { description: /^description must be at most 2000 characters, not 2001\.$/ }],
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

describe('validateFormulaInput with property names of Object.prototype', () => {
  const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
  // JSON.parse, as the HTTP layer does: `__proto__` becomes an own property, not the prototype.
  const parsed = (json: string) => JSON.parse(json) as Record<string, unknown>;
  const bodyJson = JSON.stringify(aBody()).slice(0, -1);

  it.each(names)('%s at the top level is a 400 naming it', (name) => {
    const errors = errorsOf(parsed(`${bodyJson},${JSON.stringify(name)}:1}`));
    expect(Object.keys(errors)).toEqual([name]);
    expect(errors[name]).toEqual([`${name} is not an allowed property.`]);
  });

  it.each(names)('%s in a configuration element and a request parameter is a 400 naming it', (name) => {
    const element = `{"name":"a","type":"string",${JSON.stringify(name)}:{"x":1}}`;
    const body = parsed(`${JSON.stringify(aBody({ configuration: [], request_parameters: [] })).slice(0, -1)},"x":0}`);
    body.configuration = [parsed(element)];
    body.request_parameters = [parsed(element)];
    delete body.x;
    const errors = errorsOf(body);
    expect(errors).toEqual({
      [`configuration[0].${name}`]: [`configuration[0].${name} is not an allowed property.`],
      [`request_parameters[0].${name}`]: [`request_parameters[0].${name} is not an allowed property.`],
    });
    expect(JSON.parse(JSON.stringify(errors))).toEqual(errors);
  });

  it.each(names)('%s as a configuration or parameter name is an ordinary name', (name) => {
    const body = aBody({ configuration: [setting(name)], request_parameters: [param(name), param(`x.${name}`)] });
    expect(validateFormulaInput(body).request_parameters.map((p) => p.name)).toEqual([name, `x.${name}`]);
    expect(errorsOf(aBody({ request_parameters: [param(name), param(name)] }))).toEqual({
      'request_parameters[1].name': ['request_parameters[1].name is already declared by request_parameters[0].'],
    });
  });
});

describe('validateFormulaInput never quotes a value of the body in its messages', () => {
  const secret = 'Zq9secretvalue';
  it.each<[string, Record<string, unknown>]>([
    ['an unknown type', aBody({ type: secret })],
    ['an element type', aBody({ configuration: [setting('a', { type: secret })], request_parameters: [param('b', { type: secret })] })],
    ['duplicate names', aBody({ configuration: [setting(secret), setting(secret)], request_parameters: [param(secret), param(secret)] })],
    ['clashing parameter names', aBody({ request_parameters: [param(secret), param(`${secret}.x`), param(`${secret}.x.y`)] })],
    ['dotted names', aBody({ configuration: [setting(`${secret}.x`)], request_parameters: [param(`${secret}..x`)] })],
    ['a data URL of another media type', aBody({ icon: `data:${secret};base64,AAAA` })],
    ['an icon that is no data URL', aBody({ icon: secret })],
  ])('%s', (_title, body) => {
    expect(JSON.stringify(errorsOf(body))).not.toMatch(/Zq9/);
  });
});

describe('validateFormulaInput takes time linear in the size of the lists', () => {
  it('refuses 20,000 dotted request parameters by their count, without reading them', () => {
    const body = aBody({ request_parameters: Array.from({ length: 20_000 }, (_, i) => param(`a.b.c.d.e.f.g.h${i}`)) });
    const started = performance.now();
    expect(errorsOf(body)).toEqual({ request_parameters: ['request_parameters must hold at most 200 elements, not 20000.'] });
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('refuses 10,000 configuration elements by their count, without reading them', () => {
    const body = aBody({ configuration: Array.from({ length: 10_000 }, () => ({ constructor: 1 })) });
    expect(errorsOf(body)).toEqual({ configuration: ['configuration must hold at most 100 elements, not 10000.'] });
  });
});
