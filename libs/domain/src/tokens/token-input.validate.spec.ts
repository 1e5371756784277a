import { DomainError, type FieldErrors } from '../shared/errors';
import { LATER, specEngine } from './token.builders';
import { validateCreateToken, validateTokenPatch } from './token-input.validate';
import type { TokenDraft } from './token-prepare';

const options = { now: LATER, engine: specEngine };
const SSN = '123-45-6789';

const rejection = (validate: () => unknown): FieldErrors => {
  try {
    validate();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors!;
  }
  throw new Error('The body was accepted');
};
const createErrors = (body: unknown) => rejection(() => validateCreateToken(body, options));

describe('create: defaults of each type', () => {
  it('gives an SSN its container, fingerprint, mask and three search indexes, evaluated', () => {
    const { id, deduplicate_token, draft, prepared } = validateCreateToken({ type: 'social_security_number', data: SSN }, options);
    expect({ id, deduplicate_token }).toEqual({ id: null, deduplicate_token: false });
    expect(draft).toEqual({
      type: 'social_security_number',
      data: SSN,
      containers: ['/pii/high/'],
      metadata: {},
      search_indexes: ['{{ data }}', "{{ data | remove: '-' }}", '{{ data | last4 }}'],
      fingerprint_expression: "{{ data | remove: '-' }}",
      mask: '{{ data | reveal_last: 4 }}',
      expires_at: null,
    });
    expect(prepared).toEqual({
      plaintext: SSN,
      fingerprint_input: '123456789',
      masked: 'XXX-XX-6789',
      search_values: ['123-45-6789', '123456789', '6789'],
    });
  });

  it('gives a card number a PCI container, a last-four mask and no search values', () => {
    const { draft, prepared } = validateCreateToken({ type: 'card_number', data: '4242424242424242' }, options);
    expect(draft).toMatchObject({ containers: ['/pci/high/'], search_indexes: [], fingerprint_expression: '{{ data }}' });
    expect(prepared).toEqual({
      plaintext: '4242424242424242',
      fingerprint_input: '4242424242424242',
      masked: 'XXXXXXXXXXXX4242',
      search_values: [],
    });
  });

  it('stores a generic token\'s JSON data as JSON, fingerprints it, and leaves it unmasked and unindexed', () => {
    const data = { name: 'Ada', tags: ['x'] };
    const { draft, prepared } = validateCreateToken({ type: 'token', data }, options);
    expect(draft).toMatchObject({ containers: ['/general/high/'], mask: null, search_indexes: [] });
    expect(prepared).toEqual({ plaintext: JSON.stringify(data), fingerprint_input: JSON.stringify(data), masked: null, search_values: [] });
  });

  it('treats null like an absent optional field', () => {
    const body = { type: 'social_security_number', data: SSN, id: null, containers: null, metadata: null, search_indexes: null,
      fingerprint_expression: null, mask: null, deduplicate_token: null, expires_at: null };
    expect(validateCreateToken(body, options)).toEqual(validateCreateToken({ type: 'social_security_number', data: SSN }, options));
  });

  it('keeps what the request gives', () => {
    const body = { type: 'token', data: { name: 'Ada Lovelace', born: '1815' }, containers: ['/people/'], metadata: { team: 'eng' },
      search_indexes: ['{{ data.name }}'], fingerprint_expression: '{{ data.name }}', mask: '{{ data.name }}', deduplicate_token: true };
    const { deduplicate_token, draft, prepared } = validateCreateToken(body, options);
    expect(deduplicate_token).toBe(true);
    expect(draft).toMatchObject({ containers: ['/people/'], metadata: { team: 'eng' }, search_indexes: ['{{ data.name }}'] });
    expect(prepared).toMatchObject({ fingerprint_input: 'Ada Lovelace', masked: 'Ada Lovelace', search_values: ['ada lovelace'] });
  });
});

describe('create: search indexes', () => {
  const token = (data: unknown, search_indexes: unknown) => ({ type: 'token', data, search_indexes });

  it('lower-cases, trims and de-duplicates the evaluated values', () => {
    const { prepared } = validateCreateToken(token(' MiXeD ', ['{{ data }}', '{{ data | upcase }}']), options);
    expect(prepared.search_values).toEqual(['mixed']);
  });

  it.each([
    ['{{ data.missing }}', { name: 'Ada' }, 'evaluates to an empty value'],
    ['{{ data.blank }}', { name: 'Ada' }, 'evaluates to an empty value'],
    ['{{ nil }}', { name: 'Ada' }, 'evaluates to null'],
    ['{{ data.tags }}', { tags: ['a', 'b'] }, 'evaluates to a list'],
    ['{{ data.tags }}', { tags: [] }, 'evaluates to a list'],
    ["{{ data | split: '-' }}", SSN, 'evaluates to a list'],
    ['{{ data | fails }}', SSN, 'could not be evaluated: The expression failed while rendering.'],
    ['{{ data | nope }}', SSN, 'is not a valid expression'],
  ])('%s on %j is a 400 on that index', (expression, data, message) => {
    const errors = createErrors(token(data, ['{{ data }}', expression]));
    expect(errors['search_indexes[1]']).toEqual([expect.stringContaining(message)]);
    expect(errors['search_indexes[0]']).toBeUndefined();
  });

  it('accepts text with spaces and commas as one value', () => {
    const { prepared } = validateCreateToken(token({ name: 'Lovelace, Ada' }, ['{{ data.name }}']), options);
    expect(prepared.search_values).toEqual(['lovelace, ada']);
  });

  it('refuses indexes on card numbers, but not an empty list', () => {
    const card = { type: 'card_number', data: '4242424242424242' };
    expect(createErrors({ ...card, search_indexes: ['{{ data }}'] }).search_indexes).toEqual([
      'search_indexes are not allowed for card_number tokens.',
    ]);
    expect(validateCreateToken({ ...card, search_indexes: [] }, options).draft.search_indexes).toEqual([]);
  });

  it.each([
    ['{{ data }}', 'search_indexes', 'must be an array'],
    [Array(21).fill('{{ data }}'), 'search_indexes', 'at most 20'],
    [['{{ data }}', 5], 'search_indexes[1]', 'must be a Liquid expression string'],
  ])('%j is a 400 on %s', (search_indexes, path, message) => {
    expect(createErrors(token('x', search_indexes))[path]).toEqual([expect.stringContaining(message)]);
  });

  it('lets an SSN opt out of data search with an empty list', () => {
    const { prepared } = validateCreateToken({ type: 'social_security_number', data: SSN, search_indexes: [] }, options);
    expect(prepared.search_values).toEqual([]);
  });
});

describe('create: the body as a whole', () => {
  it('names every unknown property', () => {
    const errors = createErrors({ type: 'token', data: 'x', fingerprint: 'abc', tenant_id: 't' });
    expect(errors).toEqual({
      fingerprint: ['fingerprint is not an allowed property.'],
      tenant_id: ['tenant_id is not an allowed property.'],
    });
  });

  it.each([
    [{ data: SSN }, 'type', 'type is required.'],
    [{ type: 'passport', data: SSN }, 'type', 'type must be one of token, card_number, social_security_number, employer_id_number.'],
    [{ type: 'token' }, 'data', 'data is required.'],
    [{ type: 'token', data: 'x', deduplicate_token: 'yes' }, 'deduplicate_token', 'deduplicate_token must be a boolean, not a string.'],
  ])('%j is a 400 on %s', (body, path, message) => {
    expect(createErrors(body)[path]).toEqual([message]);
  });

  it('reports every violation at once, without evaluating indexes on invalid data or quoting the data', () => {
    const body = { type: 'social_security_number', data: '987-65-432', containers: ['bad'], metadata: { k: 1 },
      mask: '{{ data | nope }}', expires_at: 'soon', unknown: true };
    const errors = createErrors(body);
    expect(Object.keys(errors).sort()).toEqual(['containers[0]', 'data', 'expires_at', 'mask', 'metadata.k', 'unknown']);
    expect(JSON.stringify(errors)).not.toContain('987-65-432');
  });

  it.each([null, [], 'text', 42])('refuses a body that is not an object: %j', (body) => {
    expect(Object.keys(createErrors(body))).toEqual(['body']);
  });
});

describe('patch (RFC 7396 merge patch)', () => {
  const current: TokenDraft = validateCreateToken(
    { type: 'social_security_number', data: SSN, containers: ['/custom/'], metadata: { a: '1', b: '2' },
      search_indexes: ['{{ data | last4 }}'], mask: '{{ data | reveal: 3, 0 }}', expires_at: '2030-01-01T00:00:00Z' },
    options,
  ).draft;
  const patch = (body: unknown) => validateTokenPatch(body, current, options);
  const patchErrors = (body: unknown) => rejection(() => patch(body));

  it('changes nothing for an empty patch, but re-evaluates', () => {
    expect(patch({})).toEqual({
      draft: current,
      prepared: { plaintext: SSN, fingerprint_input: '123456789', masked: '123-XX-XXXX', search_values: ['6789'] },
    });
  });

  it('re-evaluates mask, fingerprint and indexes against new data', () => {
    const { draft, prepared } = patch({ data: '987654321' });
    expect(draft.data).toBe('987654321');
    expect(prepared).toEqual({ plaintext: '987654321', fingerprint_input: '987654321', masked: '987XXXXXX', search_values: ['4321'] });
  });

  it.each([
    ['{{ data }}'],
    ["{{ data | remove: '-' }}"],
    ["X{{ data | remove: '-' }}X"],
    ['{{ data | upcase }}!'],
  ])('refuses a mask that evaluates to the whole data, with or without delimiters: %s', (mask) => {
    const errors = patchErrors({ mask });
    expect(Object.keys(errors)).toEqual(['mask']);
    expect(JSON.stringify(errors)).not.toMatch(/123|6789/);
  });

  it('refuses a mask that shows the whole of new data too', () => {
    expect(Object.keys(patchErrors({ data: '111-22-3333', mask: "{{ data | remove: '-' }}" }))).toEqual(['mask']);
  });

  it('resets null fields to the type\'s defaults, empties metadata and removes the expiry', () => {
    const { draft } = patch({ containers: null, metadata: null, search_indexes: null, fingerprint_expression: null,
      mask: null, expires_at: null });
    expect(draft).toEqual({ ...validateCreateToken({ type: 'social_security_number', data: SSN }, options).draft });
  });

  it('merges metadata key by key; null removes a key', () => {
    expect(patch({ metadata: { a: null, c: '3' } }).draft.metadata).toEqual({ b: '2', c: '3' });
  });

  it('limits metadata after the merge', () => {
    const full = { ...current, metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) };
    expect(validateTokenPatch({ metadata: { k0: null, extra: 'v' } }, full, options).draft.metadata).toHaveProperty('extra');
    expect(rejection(() => validateTokenPatch({ metadata: { extra: 'v' } }, full, options)).metadata).toEqual([
      'metadata must hold at most 50 entries.',
    ]);
  });

  it.each([
    [{ data: null }, 'data', 'data cannot be removed; send the new data instead.'],
    [{ data: '987-65-432' }, 'data', expect.stringContaining('9 digits')],
    [{ type: 'token' }, 'type', 'type is not an allowed property. A token keeps its type; create a new token instead.'],
    [{ id: 'x' }, 'id', 'id is not an allowed property. A token keeps its id.'],
    [{ deduplicate_token: true }, 'deduplicate_token', expect.stringContaining('only when creating')],
    [{ expires_at: '2024-01-01T00:00:00Z' }, 'expires_at', 'expires_at must be in the future.'],
    [{ containers: [] }, 'containers', 'containers must hold at least one container.'],
    [{ search_indexes: ['{{ data.missing }}'] }, 'search_indexes[0]', expect.stringContaining('empty value')],
  ])('%j is a 400 on %s', (body, path, message) => {
    expect(patchErrors(body)[path]).toEqual([message]);
  });

  it('checks existing search indexes against the new data', () => {
    const named = validateCreateToken({ type: 'token', data: { name: 'Ada' }, search_indexes: ['{{ data.name }}'] }, options).draft;
    const errors = rejection(() => validateTokenPatch({ data: { nickname: 'A' } }, named, options));
    expect(errors['search_indexes[0]']).toEqual([expect.stringContaining('empty value')]);
  });

  it('refuses search indexes on a card number', () => {
    const card = validateCreateToken({ type: 'card_number', data: '4242424242424242' }, options).draft;
    expect(rejection(() => validateTokenPatch({ search_indexes: ['{{ data }}'] }, card, options)).search_indexes).toEqual([
      'search_indexes are not allowed for card_number tokens.',
    ]);
  });
});
