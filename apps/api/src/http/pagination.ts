// Offset pagination as API.md defines it: page ≥ 1, size 1..100, out of range is a 400 (never clamped).
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Page } from '@vault/application';

export class PageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be an integer' })
  @Min(1, { message: 'page must not be less than 1' })
  page?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'size must be an integer' })
  @Min(1, { message: 'size must not be less than 1' })
  @Max(100, { message: 'size must not be greater than 100' })
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
