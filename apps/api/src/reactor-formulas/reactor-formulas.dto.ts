// The query of GET /reactor-formulas (and of GET /reactors), and the formula's body and view. Formula bodies are
// validated by the domain (reactor-formula.validate.ts, every rule with indexed paths), so their classes only describe them.
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import type { FormulaView } from '@vault/application';
import {
  type ConfigurationElement,
  FORMULA_STATUSES,
  FORMULA_TYPES,
  FORMULA_VALUE_TYPES,
  type FormulaStatus,
  type FormulaType,
  type FormulaValueType,
  MAX_CONFIGURATION_ELEMENTS,
  MAX_ELEMENT_DESCRIPTION_LENGTH,
  MAX_ELEMENT_NAME_LENGTH,
  MAX_FORMULA_CODE_LENGTH,
  MAX_FORMULA_DESCRIPTION_LENGTH,
  MAX_FORMULA_NAME_LENGTH,
  MAX_REQUEST_PARAMETERS,
  type RequestParameterElement,
} from '@vault/domain';
import { examplePage, PageQuery } from '../http/pagination';

const MAX_NAME_FILTER_LENGTH = 200;

/**
 * The type check sits closest to the property: decorators register bottom-up and the pipe stops at the first failure.
 * A NUL (`%00`) in `name` is a 400: SQLite's LIKE reads its pattern only up to the first NUL, so `%00Alpha` would
 * otherwise match every name, and `Al%00x` every name containing `al`. An empty `name=` is a 400 too, as every list's
 * empty filter is: a filter left blank by mistake, not a request for the whole list.
 */
export class FormulaListParams extends PageQuery {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_NAME_FILTER_LENGTH,
    description:
      'Case-insensitive; `*` matches any run of characters (whole name), no `*` means "contains". Given once, as a plain value (`name[]=` is a 400); empty, or with a NUL (`%00`): a 400',
  })
  @IsOptional()
  @Matches(/^[^\u0000]*$/, { message: 'name must not contain the NUL character (%00)' })
  @MaxLength(MAX_NAME_FILTER_LENGTH, { message: `name must be at most ${MAX_NAME_FILTER_LENGTH} characters long` })
  @MinLength(1, { message: 'name must not be empty; leave it out for no filter' })
  @IsString({ message: 'name must be a string' })
  name?: string;
}

@ApiSchema({ name: 'ConfigurationElement', description: 'A setting every reactor of the formula gives a value of its type.' })
export class ConfigurationElementSchema implements ConfigurationElement {
  @ApiProperty({ minLength: 1, maxLength: MAX_ELEMENT_NAME_LENGTH, description: 'No `.`; unique in the formula' })
  name!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_ELEMENT_DESCRIPTION_LENGTH })
  description!: string | null;

  @ApiProperty({ enum: FORMULA_VALUE_TYPES })
  type!: FormulaValueType;
}

@ApiSchema({ name: 'RequestParameterElement', description: 'A value an invocation passes in `args`, at its dotted path.' })
export class RequestParameterElementSchema implements RequestParameterElement {
  @ApiProperty({ minLength: 1, maxLength: MAX_ELEMENT_NAME_LENGTH, description: 'A dotted path into `args` (`card.number`); unique, and no name both a leaf and a parent' })
  name!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_ELEMENT_DESCRIPTION_LENGTH })
  description!: string | null;

  @ApiProperty({ enum: FORMULA_VALUE_TYPES })
  type!: FormulaValueType;

  @ApiPropertyOptional({ default: false, description: 'An optional parameter may be left out (never null)' })
  optional!: boolean;
}

@ApiSchema({ name: 'ReactorFormulaBody', description: 'A formula to create, or its new version (PUT).' })
export class ReactorFormulaBody {
  @ApiProperty({ minLength: 1, maxLength: MAX_FORMULA_NAME_LENGTH })
  name!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_FORMULA_DESCRIPTION_LENGTH })
  description?: string | null;

  @ApiProperty({ enum: FORMULA_TYPES, description: 'Tenant applications may only write private formulas (official → 403)' })
  type!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description:
      '`data:image/png|jpg|jpeg;base64,…` whose bytes are that image type (a PNG signature followed by a valid IHDR chunk; a JPEG SOI followed by a complete marker segment), at most 1 MiB decoded',
  })
  icon?: string | null;

  @ApiProperty({
    minLength: 1,
    maxLength: MAX_FORMULA_CODE_LENGTH,
    description: 'Node.js 16 JavaScript; `module.exports` must be a function, called with `{ args, configuration }`. Code that does not compile is a 422',
  })
  code!: string;

  @ApiProperty({ type: [ConfigurationElementSchema], maxItems: MAX_CONFIGURATION_ELEMENTS })
  configuration!: ConfigurationElementSchema[];

  @ApiProperty({ type: [RequestParameterElementSchema], maxItems: MAX_REQUEST_PARAMETERS })
  request_parameters!: RequestParameterElementSchema[];
}

@ApiSchema({ name: 'ReactorFormula' })
export class ReactorFormulaSchema implements FormulaView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'string', nullable: true })
  description!: string | null;

  @ApiProperty({ enum: FORMULA_TYPES })
  type!: FormulaType;

  @ApiProperty({ enum: FORMULA_STATUSES, description: 'Reactors can be made of verified formulas only; a tenant’s own formulas are verified' })
  status!: FormulaStatus;

  @ApiProperty({ type: 'string', nullable: true })
  icon!: string | null;

  @ApiProperty()
  code!: string;

  @ApiProperty({ type: [ConfigurationElementSchema] })
  configuration!: ConfigurationElementSchema[];

  @ApiProperty({ type: [RequestParameterElementSchema] })
  request_parameters!: RequestParameterElementSchema[];

  @ApiProperty({ description: 'The creating application, or the operator' })
  created_by!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Present once modified' })
  modified_by?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once modified' })
  modified_at?: string;
}

// Examples: the request body is sent as it stands by test/e2e/openapi.spec.ts, the icon included (a real 1×1 PNG).
export const FORMULA_BODY_EXAMPLE = {
  name: 'Card enricher',
  description: 'Returns the BIN of a card number in raw',
  type: 'private',
  icon: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mPQztnwHwAEVAJHQ1zbHgAAAABJRU5ErkJggg==',
  code: 'module.exports = async function ({ args, configuration }) {\n  return { raw: { bin: String(args.card.number).slice(0, 6), region: configuration.region } };\n};\n',
  configuration: [{ name: 'region', description: 'Where the cards are issued', type: 'string' }],
  request_parameters: [{ name: 'card.number', description: 'The card number', type: 'string', optional: false }],
} as const;

export const FORMULA_EXAMPLE = {
  id: '1cf88798-0076-461b-b537-1a7f8afe2a70',
  status: 'verified',
  ...FORMULA_BODY_EXAMPLE,
  configuration: [...FORMULA_BODY_EXAMPLE.configuration],
  request_parameters: [...FORMULA_BODY_EXAMPLE.request_parameters],
  created_by: 'b0075700-0000-4000-8000-000000000002',
  created_at: '2026-11-28T10:40:33.033Z',
} satisfies FormulaView;

export const UPDATED_FORMULA_EXAMPLE = {
  ...FORMULA_EXAMPLE,
  modified_by: FORMULA_EXAMPLE.created_by,
  modified_at: '2026-11-28T11:15:00.000Z',
} satisfies FormulaView;

export const FORMULA_PAGE_EXAMPLE = examplePage<FormulaView>(FORMULA_EXAMPLE);
