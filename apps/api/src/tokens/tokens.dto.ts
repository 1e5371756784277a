// The bodies and answers of the token routes. Only the search body is validated here: token bodies are validated by the
// domain (token-input.validate.ts), field by field per type, so their classes below only describe them.
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import type { TokenView } from '@vault/application';
import {
  DATA_SEARCHABLE_TYPES,
  DATE_FIELDS,
  listNames,
  MAX_CONTAINERS,
  MAX_METADATA_ENTRIES,
  MAX_METADATA_VALUE_LENGTH,
  MAX_QUERY_LENGTH,
  MAX_SEARCH_INDEXES,
  MAX_TOKEN_DATA_DEPTH,
  MAX_TOKEN_DATA_LENGTH,
  SEARCH_FIELDS,
  type JsonValue,
  type SearchFieldKind,
  type SearchFieldSpec,
  TOKEN_TYPES,
  tokenTypeRules,
} from '@vault/domain';
import { examplePage, MAX_PAGE, MAX_PAGE_SIZE } from '../http/pagination';

// How the search description names a field of each kind: a new kind of field must say here how it is searched.
const describeField: Record<SearchFieldKind, (name: string, spec: SearchFieldSpec) => string> = {
  term: (name, spec) => (spec.kind === 'term' && spec.case === 'exact' ? `${name} (case-sensitive)` : name),
  date: (name) => name,
  container: (name) => `${name} (exact, or trailing \`*\` for sub-containers)`,
  data: (name) => `${name} (${DATA_SEARCHABLE_TYPES.join(', ')})`,
  metadata: (name) => name,
};

/** The query syntax of POST /tokens/search; its fields are those of SEARCH_FIELDS. */
export const SEARCH_QUERY_SYNTAX = [
  'Fields (case-insensitive unless noted):',
  `${Object.entries(SEARCH_FIELDS).map(([name, spec]: [string, SearchFieldSpec]) => describeField[spec.kind](name, spec)).join(', ')}.`,
  'Operators AND, OR, NOT (also `!`, `-`), parentheses;',
  `ranges on ${listNames(DATE_FIELDS, 'and')}: \`[a TO b]\`, \`{a TO b}\`, mixed, \`*\` open.`,
].join(' ');

/**
 * page 1..1,000,000,000 and size 1..100 as in PageQuery (apps/api/src/http/pagination.ts). Decorators register
 * bottom-up and the pipe stops at a field's first failure, so the integer check sits closest to the property: a
 * string "20" gets only "size must be an integer".
 */
export class SearchTokensBody {
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: MAX_QUERY_LENGTH,
    description: `Lucene-style query; absent, null or blank returns every token you may search. ${SEARCH_QUERY_SYNTAX}`,
  })
  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsString({ message: 'query must be a string' })
  query?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Max(MAX_PAGE, { message: `page must not be greater than ${MAX_PAGE}` })
  @Min(1, { message: 'page must not be less than 1' })
  @IsInt({ message: 'page must be an integer' })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })
  @IsOptional()
  @Max(MAX_PAGE_SIZE, { message: `size must not be greater than ${MAX_PAGE_SIZE}` })
  @Min(1, { message: 'size must not be less than 1' })
  @IsInt({ message: 'size must be an integer' })
  size?: number;

  /** The constraints above, by hand, for the body pipe's fast path (AcceptsAsIs): null and absent are both optional. */
  static acceptsAsIs(body: unknown): boolean {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    for (const key of Object.keys(body)) if (key !== 'query' && key !== 'page' && key !== 'size') return false;
    const { query, page, size } = body as Record<string, unknown>;
    return (query == null || typeof query === 'string') && optionalIntIn(page, 1, MAX_PAGE) && optionalIntIn(size, 1, MAX_PAGE_SIZE);
  }
}

const optionalIntIn = (value: unknown, min: number, max: number): boolean =>
  value == null || (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max);

const EXPRESSION = 'A Liquid expression over `data`';

/** Token data: any JSON value but null (the domain checks it against the type). */
const TOKEN_DATA = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array' }] };

@ApiSchema({ name: 'CreateTokenBody', description: 'A token to create; the domain checks every field against the type.' })
export class CreateTokenBody {
  @ApiPropertyOptional({ format: 'uuid', description: 'Your own id for the token; taken in this tenant → 409' })
  id?: string;

  @ApiProperty({ enum: TOKEN_TYPES })
  type!: string;

  @ApiProperty({
    ...TOKEN_DATA,
    description:
      'card_number: 13–19 Luhn-valid digits; social_security_number: 123-45-6789 or 123456789; employer_id_number: 12-3456789 or 123456789; ' +
      `token: any JSON value but null, nested at most ${MAX_TOKEN_DATA_DEPTH} deep, at most ${MAX_TOKEN_DATA_LENGTH.toLocaleString('en-US')} characters of JSON`,
  })
  data!: JsonValue;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_CONTAINERS,
    description: '`/…/` paths of a-z, 0-9, _ and - segments; default by type (`/pci/high/`, `/pii/high/`, `/general/high/`)',
  })
  containers?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE_LENGTH },
    maxProperties: MAX_METADATA_ENTRIES,
    description: 'Name → value, searchable as `metadata.<name>`',
  })
  metadata?: Record<string, string>;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_SEARCH_INDEXES,
    description: `${EXPRESSION} each; each must yield one non-empty value (else 400). Not for card_number.`,
  })
  search_indexes?: string[];

  @ApiPropertyOptional({ description: `${EXPRESSION}; tokens of one type with the same fingerprint are duplicates` })
  fingerprint_expression?: string;

  @ApiPropertyOptional({ description: `${EXPRESSION}; one that evaluates to the whole data (with or without delimiters) is a 400` })
  mask?: string;

  @ApiPropertyOptional({
    description:
      "Return the existing token with the same type and fingerprint (200) instead of creating one, when one of the caller's rules grants token:create on one of the EXISTING token's containers (shown under that rule); otherwise a new token is created (201)",
  })
  deduplicate_token?: boolean;

  @ApiPropertyOptional({ format: 'date-time', description: 'Deleted (and its data key destroyed) from then on' })
  expires_at?: string;
}

/** A token as its reader sees it; `implements` keeps every field of the view described here. */
@ApiSchema({ name: 'Token' })
export class TokenSchema implements TokenView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: TOKEN_TYPES })
  type!: string;

  @ApiProperty({ format: 'uuid' })
  tenant_id!: string;

  @ApiPropertyOptional({ ...TOKEN_DATA, description: "Per the caller's access rule for the token: reveal → the data, mask → the evaluated mask, redact → absent" })
  data?: JsonValue;

  @ApiProperty({ description: 'Base58 hash of the fingerprint expression, keyed per tenant' })
  fingerprint!: string;

  @ApiProperty()
  fingerprint_expression!: string;

  @ApiPropertyOptional({ description: 'The mask expression; absent when the token has none' })
  mask?: string;

  @ApiProperty({ type: [String] })
  containers!: string[];

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata!: Record<string, string>;

  @ApiProperty({ type: [String] })
  search_indexes!: string[];

  @ApiPropertyOptional({ format: 'date-time' })
  expires_at?: string;

  @ApiProperty({ description: 'The creating application, or the operator' })
  created_by!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Present once modified' })
  modified_by?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once modified' })
  modified_at?: string;
}

// Examples: ids and times as a real answer has them; the request bodies are sent as they stand by test/e2e/openapi.spec.ts.
const TENANT = 'b0075700-0000-4000-8000-000000000001';
const APPLICATION = '36eb6031-a27e-4338-b10b-e508d8700c42';

/** What the domain answers for data that does not fit the type: the example of a create's 400. */
export const BAD_DATA_ERRORS = { data: [tokenTypeRules('social_security_number').checkData('12-345')!] };

export const CREATE_TOKEN_EXAMPLE = { type: 'social_security_number', data: '123-45-6789', metadata: { customer: 'acme' } };

export const TOKEN_EXAMPLE = {
  id: '5bb5c984-d3a2-4640-b59c-b8ed22cba6b0',
  type: 'social_security_number',
  tenant_id: TENANT,
  data: 'XXX-XX-6789',
  fingerprint: '5LzzMbLMRciSMeNLFWqaAcziQ7g2MuviCP1P46hBEjR9',
  fingerprint_expression: "{{ data | remove: '-' }}",
  mask: '{{ data | reveal_last: 4 }}',
  containers: ['/pii/high/'],
  metadata: { customer: 'acme' },
  search_indexes: ['{{ data }}', "{{ data | remove: '-' }}", '{{ data | last4 }}'],
  created_by: APPLICATION,
  created_at: '2026-11-28T10:40:32.574Z',
} satisfies TokenView;

export const UPDATE_TOKEN_EXAMPLE = { metadata: { customer: null, region: 'eu' } };

export const UPDATED_TOKEN_EXAMPLE = {
  ...TOKEN_EXAMPLE,
  metadata: { region: 'eu' },
  modified_by: APPLICATION,
  modified_at: '2026-11-28T10:41:02.716Z',
} satisfies TokenView;

export const SEARCH_TOKENS_EXAMPLE = { query: 'data:6789 AND container:"/pii/*"', page: 1, size: 20 };

export const TOKEN_PAGE_EXAMPLE = examplePage<TokenView>(TOKEN_EXAMPLE);
