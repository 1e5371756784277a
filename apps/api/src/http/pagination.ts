// Offset pagination as the API documents it: page 1..MAX_PAGE, size 1..100, out of range is a 400 (never clamped).
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Page } from '@vault/application';

/** Our bound (documented in OpenAPI): (MAX_PAGE - 1) × 100 stays far inside SQLite's 64-bit OFFSET. */
export const MAX_PAGE = 1_000_000_000;
export const MAX_PAGE_SIZE = 100;

/** Query values are read as integers only when they are plain decimal digits (`0x10`, `1e1`, ` 5` stay strings). */
const decimalDigits = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]{1,30}$/.test(value) ? Number(value) : value;

// Decorators register bottom-up and the pipes stop at a field's first failure: the integer check sits closest to
// the property, so "20" or "0x10" gets the one message "must be an integer".
export class PageQuery {
  @IsOptional()
  @Transform(decimalDigits)
  @Max(MAX_PAGE, { message: `page must not be greater than ${MAX_PAGE}` })
  @Min(1, { message: 'page must not be less than 1' })
  @IsInt({ message: 'page must be an integer' })
  page?: number;

  @IsOptional()
  @Transform(decimalDigits)
  @Max(MAX_PAGE_SIZE, { message: `size must not be greater than ${MAX_PAGE_SIZE}` })
  @Min(1, { message: 'size must not be less than 1' })
  @IsInt({ message: 'size must be an integer' })
  size?: number;
}

export interface Paginated<T> {
  pagination: { total_items: number; page_number: number; page_size: number; total_pages: number };
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
