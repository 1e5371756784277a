// The shipped official formulas: each file is importable, its code passes the sandbox check, and it really works.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateFormulaInput, validateOfficialFormulaFile } from '@vault/domain';
import { IsolatedVmCodeChecker } from '@vault/adapters/sandbox/isolated-vm-code-checker';
import { loadFormula, type FormulaRequest } from '@vault/adapters/sandbox/isolated-vm-formula-module';

const DIR = join(__dirname, '..', '..', 'formulas', 'official');
const files = readdirSync(DIR).filter((name) => name.endsWith('.json')).sort();
const read = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(DIR, file), 'utf8'));

/** Calls the file's exported function inside a fresh isolate, as a reactor invocation would. */
const invoke = async (file: string, request: FormulaRequest): Promise<unknown> => {
  const loaded = await loadFormula(read(file).code as string, { memoryLimitMb: 32, timeoutMs: 1000 });
  if (!loaded.ok) throw new Error(loaded.reason);
  try {
    return await loaded.formula.invoke(request);
  } finally {
    loaded.formula.dispose();
  }
};

describe('every official formula file', () => {
  it('is there: at least two ship', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it('has its own fixed id and name, so re-importing updates instead of duplicating', () => {
    const parsed = files.map(read);
    expect(new Set(parsed.map((f) => f.id)).size).toBe(files.length);
    expect(new Set(parsed.map((f) => f.name)).size).toBe(files.length);
  });

  describe.each(files)('%s', (file) => {
    const body = read(file);

    it('is a valid create body once its id and status are set aside', () => {
      const { id: _id, status: _status, ...formula } = body;
      expect(validateFormulaInput(formula)).toMatchObject({ name: body.name, type: 'official' });
    });

    it('is a valid official formula file, with a real PNG icon', () => {
      const parsed = validateOfficialFormulaFile(body);
      expect(parsed.id).toBe(body.id);
      expect(['verified', 'coming_soon']).toContain(parsed.status);
      expect(parsed.input.icon).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    });

    it('passes the sandbox code check', async () => {
      await expect(new IsolatedVmCodeChecker().check(body.code as string)).resolves.toEqual({ ok: true });
    });

    it('declares its configuration and parameters with descriptions a user can follow', () => {
      const elements = [...(body.configuration as object[]), ...(body.request_parameters as object[])];
      for (const element of elements) expect(element).toHaveProperty('description', expect.stringMatching(/\S{3}/));
    });
  });
});

describe('Tokenize Payload', () => {
  const file = 'tokenize-payload.json';

  it('asks for one token per non-empty field, in the configured container', async () => {
    const response = await invoke(file, {
      args: { payload: { ssn: '123-45-6789', note: 'call after 5pm', empty: '', gone: null } },
      configuration: { container: '/pii/high/', deduplicate: true },
    });
    expect(response).toEqual({
      raw: { tokenized_fields: ['ssn', 'note'], skipped_fields: ['empty', 'gone'] },
      tokenize: {
        ssn: { type: 'token', data: '123-45-6789', containers: ['/pii/high/'], deduplicate_token: true },
        note: { type: 'token', data: 'call after 5pm', containers: ['/pii/high/'], deduplicate_token: true },
      },
    });
  });

  it('uses the requested token type and the type\'s default container when none is configured', async () => {
    const response = await invoke(file, { args: { payload: { card: '4242424242424242' }, token_type: 'card_number' }, configuration: {} });
    expect(response).toEqual({
      raw: { tokenized_fields: ['card'], skipped_fields: [] },
      tokenize: { card: { type: 'card_number', data: '4242424242424242' } },
    });
  });

  it('tokenizes structured field values as they are', async () => {
    const response = (await invoke(file, { args: { payload: { address: { city: 'Lyon', zip: '69001' } } }, configuration: {} })) as {
      tokenize: Record<string, unknown>;
    };
    expect(response.tokenize.address).toEqual({ type: 'token', data: { city: 'Lyon', zip: '69001' } });
  });

  it.each([
    ['no payload', { args: {}, configuration: {} }, /args\.payload must be an object/],
    ['a payload that is a string', { args: { payload: 'x' }, configuration: {} }, /args\.payload must be an object/],
    ['an unknown token type', { args: { payload: { a: '1' }, token_type: 'iban' }, configuration: {} }, /args\.token_type must be one of/],
  ])('refuses %s with a message for the caller', async (_title, request, message) => {
    await expect(invoke(file, request)).rejects.toThrow(message);
  });
});

describe('Mask Email', () => {
  const file = 'mask-email.json';

  it.each<[string, Record<string, unknown>, unknown]>([
    ['keeps the first and last character and the domain, trimmed and lower-cased', {}, { masked_email: 'j******e@example.com', domain: 'example.com' }],
    ['masks with the configured character', { mask_character: '•' }, { masked_email: 'j••••••e@example.com', domain: 'example.com' }],
    ['hides the domain but its last label when asked', { reveal_domain: false }, { masked_email: 'j******e@*******.com' }],
  ])('%s', async (_title, configuration, raw) => {
    await expect(invoke(file, { args: { email: ' jane.doe@Example.COM ' }, configuration })).resolves.toEqual({ raw });
  });

  it('keeps only the first character of a short name', async () => {
    await expect(invoke(file, { args: { email: 'bob@mail.io' }, configuration: {} })).resolves.toEqual({
      raw: { masked_email: 'b**@mail.io', domain: 'mail.io' },
    });
  });

  it('refuses something that is not an email address', async () => {
    await expect(invoke(file, { args: { email: 'not-an-email' }, configuration: {} })).rejects.toThrow(/args\.email must be an email address/);
  });
});

describe('Reshape Arguments', () => {
  const file = 'reshape-arguments.json';
  const args = { user: { full_name: 'Ada Lovelace', address: { city: 'London' } }, plan: 'pro' };

  it('copies dotted input paths to dotted output paths', async () => {
    const configuration = { mapping: 'name=user.full_name, billing.city=user.address.city, tier=plan, phone=user.phone' };
    await expect(invoke(file, { args, configuration })).resolves.toEqual({
      raw: { name: 'Ada Lovelace', billing: { city: 'London' }, tier: 'pro', phone: null },
    });
  });

  it('leaves out missing values when drop_missing is set', async () => {
    const configuration = { mapping: 'name=user.full_name,phone=user.phone', drop_missing: true };
    await expect(invoke(file, { args, configuration })).resolves.toEqual({ raw: { name: 'Ada Lovelace' } });
  });

  it.each([
    ['no mapping', {}, /configuration\.mapping is required/],
    ['a malformed pair', { mapping: 'name' }, /entries look like output=input\.path/],
    ['an output that would touch the prototype', { mapping: '__proto__.polluted=plan' }, /unusable output name/],
  ])('refuses %s', async (_title, configuration, message) => {
    await expect(invoke(file, { args, configuration })).rejects.toThrow(message);
  });
});
