// The bodies and answers of the reactor routes. Reactor bodies are validated by the domain against the formula they name
// (reactor.validate.ts, every rule by path), so their classes only describe them.
import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional, ApiSchema, getSchemaPath, type SchemaObject } from '@nestjs/swagger';
import type { FormulaView, ReactorView } from '@vault/application';
import { type ConfigurationValue, MAX_CONFIGURATION_ELEMENTS, MAX_CONFIGURATION_VALUE_LENGTH, MAX_REACTOR_NAME_LENGTH } from '@vault/domain';
import { examplePage } from '../http/pagination';
import { ReactorFormulaSchema } from '../reactor-formulas/reactor-formulas.dto';

@ApiSchema({ name: 'IdReference' })
export class IdReference {
  @ApiProperty({ format: 'uuid' })
  id!: string;
}

const CONFIGURATION: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: ['string', 'boolean', 'number'] },
  maxProperties: MAX_CONFIGURATION_ELEMENTS,
  description:
    'Setting name → value: every setting the formula declares, each of its declared type, and nothing else (else a 400 naming `configuration.<name>`). ' +
    `Strings at most ${MAX_CONFIGURATION_VALUE_LENGTH.toLocaleString('en-US')} characters. Values are secrets: stored sealed under the reactor's own key, ` +
    'shown only to reactor:read holders, destroyed with the reactor; error messages name settings, never values.',
};

const APPLICATION_DESCRIPTION =
  "A private application of your tenant whose rules tokenize the code's `tokenize` output (else a 400 on `application.id`); absent or null: the caller's";

@ApiSchema({ name: 'ReactorUpdateBody', description: 'A reactor’s new name, configuration and application; it keeps its formula (sending one is a 400).' })
export class ReactorUpdateBody {
  @ApiProperty({ minLength: 1, maxLength: MAX_REACTOR_NAME_LENGTH })
  name!: string;

  @ApiProperty(CONFIGURATION)
  configuration!: Record<string, ConfigurationValue>;

  @ApiPropertyOptional({ type: IdReference, nullable: true, description: APPLICATION_DESCRIPTION })
  application?: IdReference | null;
}

@ApiSchema({ name: 'ReactorCreateBody', description: 'A reactor to create: a formula with its configuration.' })
export class ReactorCreateBody extends ReactorUpdateBody {
  @ApiProperty({
    type: IdReference,
    description: "An official formula or one of your tenant's, with status verified (else a 400 on `formula.id`; another tenant's private formula is as unknown as a missing one)",
  })
  formula!: IdReference;
}

@ApiSchema({ name: 'Reactor' })
export class ReactorSchema implements ReactorView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  tenant_id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({
    anyOf: [
      { $ref: getSchemaPath(ReactorFormulaSchema) },
      { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' } } },
      { type: 'null' },
    ],
    description:
      "The formula as GET /reactor-formulas/{id} shows it now (a reactor runs its formula's current code); only its id and name to a caller without reactor:read (the answer to its create, PUT or PATCH); null in the moment a formula delete racing this reactor's creation won",
  })
  formula!: FormulaView | Pick<FormulaView, 'id' | 'name'> | null;

  @ApiPropertyOptional({ ...CONFIGURATION, description: 'Absent when the caller lacks reactor:read (the answer to its create, PUT or PATCH)' })
  configuration?: Record<string, ConfigurationValue>;

  @ApiPropertyOptional({ type: IdReference, description: 'Present when the reactor has one' })
  application?: IdReference;

  @ApiProperty({ description: 'The creating application' })
  created_by!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Present once modified' })
  modified_by?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once modified' })
  modified_at?: string;
}

export const REACT_BODY: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: { args: { description: 'Any JSON; detokenization expressions anywhere in its strings' } },
};

export const REACT_ANSWER: SchemaObject = {
  type: 'object',
  required: ['tokens', 'raw'],
  properties: {
    tokens: {
      description:
        "The code's `tokenize` with each token request or leaf replaced by its token, as POST /tokenize answers; an array of id-only views when the caller does not reveal every token args used; null without one",
    },
    raw: { type: ['object', 'null'], description: "The code's `raw`, a JSON object of at most 1 MiB; null without one" },
  },
};

export const REACT_DESCRIPTION = [
  "1. `args` is detokenized: every `{{ <token id> }}` is replaced by the token's data (filters, or an expression inside a longer string, only on tokens the caller's token:read rule reveals: else a 403 naming `args.<path>`);",
  'the caller needs a rule granting token:use on each token, whatever its transform (the data goes to the code, never back to the caller).',
  'A token that does not exist or that no rule covers: a 400 naming `args.<path>`, the same message for both.',
  "2. The detokenized args are checked against the formula's request_parameters (a 400 naming `args.<path>`; the message gives the declared type, never the value; a null is of no type, an optional parameter may only be left out).",
  '3. The code runs in a fresh isolated V8 context with `{ args, configuration }`, under VAULT_REACTOR_TIMEOUT_MS, VAULT_REACTOR_MEMORY_MB and VAULT_REACTOR_CONCURRENCY, `fetch` reaching only VAULT_REACTOR_ALLOWED_HOSTS.',
  "4. `raw` (an object) is returned as is; `tokenize` is tokenized exactly as POST /tokenize, as the reactor's application when it has one (else the caller), and returned as `tokens` (null when the code returned none), each token shown by the caller's own token:read rule, at most as the caller's rules show the tokens args used.",
  'When the caller does not reveal every token args used, `tokens` is an array of id-only views in document order, those tokens get no search indexes, errors name only `tokenize`, and an invalid result is one 422 on `errors.reactor`.',
  "5. Code that throws, times out, runs out of memory, returns something other than nothing or a plain object of JSON values, or a `raw` that is not an object: a 422 with `errors.reactor` (the thrown message, at most 500 characters, with every token value, configuration value and 8+ character run of one taken out).",
  "Args, configuration, raw and the code's errors are never logged.",
].join(' ');

// Examples: the request bodies are sent as they stand by test/e2e/openapi.spec.ts. The formula is the official Mask Email
// (formulas/official/mask-email.json), which the operator imports with `vault formulas import`.
export const MASK_EMAIL_FORMULA = '3b9f0c27-6d1a-4e58-8f2b-51c7a9e0d342';
/** A token the react example names; test/e2e/openapi.spec.ts puts a real token's id in its place. */
export const EXAMPLE_EMAIL_TOKEN = '0b6f3c9e-2a41-4f8e-9d57-3c1e8a2b7f10';

export const CREATE_REACTOR_EXAMPLE = { name: 'Mask support emails', formula: { id: MASK_EMAIL_FORMULA }, configuration: { mask_character: '#', reveal_domain: true } };
export const UPDATE_REACTOR_EXAMPLE = { name: 'Mask support emails', configuration: { mask_character: '*', reveal_domain: false } };
export const PATCH_REACTOR_EXAMPLE = { configuration: { mask_character: '-' } };
export const REACT_EXAMPLE = { args: { email: `{{ ${EXAMPLE_EMAIL_TOKEN} }}` } };
export const REACTED_EXAMPLE = { tokens: null, raw: { masked_email: 'a##########e@example.com', domain: 'example.com' } };

const REACTOR_EXAMPLE_BASE = {
  id: '3890bf8e-e35b-4b77-a4d3-36ed7c5b35db',
  tenant_id: 'b0075700-0000-4000-8000-000000000001',
  name: 'Mask support emails',
  created_by: 'b0075700-0000-4000-8000-000000000002',
  created_at: '2026-11-28T10:40:33.109Z',
};
const MASK_EMAIL_VIEW: FormulaView = {
  id: MASK_EMAIL_FORMULA,
  status: 'verified',
  name: 'Mask Email',
  description: 'Returns a display-safe email address (j******e@example.com) in raw. Calls no network and creates no token.',
  type: 'official',
  icon: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mPQztnwHwAEVAJHQ1zbHgAAAABJRU5ErkJggg==',
  code: 'module.exports = async function maskEmail({ args = {}, configuration = {} }) { /* … */ };\n',
  configuration: [
    { name: 'mask_character', description: 'Character that replaces hidden characters; defaults to *.', type: 'string' },
    { name: 'reveal_domain', description: 'Keep the domain readable (default true); false masks all but its last label.', type: 'boolean' },
  ],
  request_parameters: [{ name: 'email', description: 'The email address to mask.', type: 'string', optional: false }],
  created_by: 'cli',
  created_at: '2026-11-28T09:00:00.000Z',
};
export const REACTOR_EXAMPLE = {
  ...REACTOR_EXAMPLE_BASE,
  formula: MASK_EMAIL_VIEW,
  configuration: CREATE_REACTOR_EXAMPLE.configuration,
} satisfies ReactorView;
export const UPDATED_REACTOR_EXAMPLE = {
  ...REACTOR_EXAMPLE,
  configuration: UPDATE_REACTOR_EXAMPLE.configuration,
  modified_by: REACTOR_EXAMPLE_BASE.created_by,
  modified_at: '2026-11-28T11:20:00.000Z',
} satisfies ReactorView;
export const PATCHED_REACTOR_EXAMPLE = { ...UPDATED_REACTOR_EXAMPLE, configuration: { mask_character: '-', reveal_domain: false } } satisfies ReactorView;
export const REACTOR_PAGE_EXAMPLE = examplePage<ReactorView>(REACTOR_EXAMPLE);
