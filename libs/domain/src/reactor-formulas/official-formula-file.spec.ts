import { DomainError, type FieldErrors } from '../shared/errors';
import { importOfficialFormulaCommand, validateOfficialFormulaFile } from './official-formula-file';

const ID = '3d6c9a1e-4b7f-4c2a-9e51-0a7b8c9d0e1f';

const aFile = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: ID,
  name: 'Reshape Arguments',
  type: 'official',
  status: 'coming_soon',
  code: 'module.exports = async ({ args }) => ({ raw: args });',
  configuration: [],
  request_parameters: [{ name: 'user.email', type: 'string' }],
  ...overrides,
});

const errorsOf = (file: unknown): FieldErrors => {
  try {
    validateOfficialFormulaFile(file);
  } catch (error) {
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the file was accepted');
};

describe('validateOfficialFormulaFile', () => {
  it('splits a file into its id, its status and a normalised formula input', () => {
    expect(validateOfficialFormulaFile(aFile({ id: ID.toUpperCase() }))).toEqual({
      id: ID,
      status: 'coming_soon',
      input: {
        name: 'Reshape Arguments',
        description: null,
        type: 'official',
        icon: null,
        code: 'module.exports = async ({ args }) => ({ raw: args });',
        configuration: [],
        request_parameters: [{ name: 'user.email', description: null, type: 'string', optional: false }],
      },
    });
  });

  it.each<[string, unknown, string[]]>([
    ['a missing id', aFile({ id: undefined }), ['id']],
    ['an id that is not a UUID', aFile({ id: 'tokenize-payload' }), ['id']],
    ['a missing status', aFile({ status: undefined }), ['status']],
    ['an unknown status', aFile({ status: 'beta' }), ['status']],
    ['a private formula', aFile({ type: 'private' }), ['type']],
    ['an unknown property', aFile({ author: 'ops' }), ['author']],
    ['a bad formula field next to a bad id', aFile({ id: 1, request_parameters: [{ name: 'a..b', type: 'string' }] }), ['id', 'request_parameters[0].name']],
  ])('rejects %s', (_title, file, fields) => {
    expect(Object.keys(errorsOf(file)).sort()).toEqual(fields.sort());
  });

  it('rejects a file that is not an object', () => {
    expect(() => validateOfficialFormulaFile([aFile()])).toThrow(DomainError);
  });

  it('becomes the import command carrying the file\'s id and status', () => {
    const command = importOfficialFormulaCommand(validateOfficialFormulaFile(aFile()));
    expect(command).toMatchObject({ type: 'ImportOfficialFormula', data: { id: ID, status: 'coming_soon' } });
  });
});
