// Offset pagination as the API documents it: page 1..MAX_PAGE, size 1..100, out of range is a 400 (never clamped).
import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Page } from '@vault/application';
import { ApiProblem } from './problem';

/** Our bound: (MAX_PAGE - 1) × 100 stays far inside SQLite's 64-bit OFFSET. */
export const MAX_PAGE = 1_000_000_000;
export const MAX_PAGE_SIZE = 100;

/** Query values are read as integers only when they are plain decimal digits (`0x10`, `1e1`, ` 5` stay strings). */
const decimalDigits = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]{1,30}$/.test(value) ? Number(value) : value;

const DIGITS_ONLY = 'Decimal digits only (`0x10`, `1e1` are 400s); given once, as a plain value (`page[]=` is a 400)';

// Decorators register bottom-up and the pipes stop at a field's first failure: the integer check sits closest to
// the property, so "20" or "0x10" gets the one message "must be an integer".
export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, description: DIGITS_ONLY })
  @IsOptional()
  @Transform(decimalDigits)
  @Max(MAX_PAGE, { message: `page must not be greater than ${MAX_PAGE}` })
  @Min(1, { message: 'page must not be less than 1' })
  @IsInt({ message: 'page must be an integer' })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: DIGITS_ONLY })
  @IsOptional()
  @Transform(decimalDigits)
  @Max(MAX_PAGE_SIZE, { message: `size must not be greater than ${MAX_PAGE_SIZE}` })
  @Min(1, { message: 'size must not be less than 1' })
  @IsInt({ message: 'size must be an integer' })
  size?: number;
}

@ApiSchema({ name: 'Pagination' })
export class Pagination {
  @ApiProperty({ type: 'integer', minimum: 0 })
  total_items!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  page_number!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE })
  page_size!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  total_pages!: number;
}

export interface Paginated<T> {
  pagination: Pagination;
  data: T[];
}

export function paginated<T>(page: Page<T>, pageNumber: number, pageSize: number): Paginated<T> {
  return {
    pagination: {
      total_items: page.total,
      page_number: pageNumber,
      page_size: pageSize,
      total_pages: Math.ceil(page.total / pageSize),
    },
    data: page.items,
  };
}

/** The one page of `items` an example list answer shows. */
export const examplePage = <T>(...items: T[]): Paginated<T> => ({
  pagination: { total_items: items.length, page_number: 1, page_size: 20, total_pages: 1 },
  data: items,
});

/** The OpenAPI side of a list: its 200, a page of `model`, and the 400 for a bad query parameter. */
export const ApiPageResponse = (model: Function, description: string, example: Paginated<unknown>) =>
  applyDecorators(
    ApiExtraModels(Pagination, model),
    ApiOkResponse({
      description,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['pagination', 'data'],
            properties: { pagination: { $ref: getSchemaPath(Pagination) }, data: { type: 'array', items: { $ref: getSchemaPath(model) } } },
          },
          example,
        },
      },
    }),
    ApiProblem(400, 'A query parameter is out of range, malformed, or given twice; `errors` names it.', 'One or more validation errors occurred.', {
      size: [`size must not be greater than ${MAX_PAGE_SIZE}`],
    }),
  );
