// The body of POST /tokens/search. Token bodies themselves are validated by the domain, so they have no DTO.
import { IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../http/pagination';

/**
 * page 1..1,000,000,000 and size 1..100 as in PageQuery (apps/api/src/http/pagination.ts). Decorators register
 * bottom-up and the pipe stops at a field's first failure, so the integer check sits closest to the property: a
 * string "20" gets only "size must be an integer".
 */
export class SearchTokensBody {
  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsString({ message: 'query must be a string' })
  query?: string | null;

  @IsOptional()
  @Max(MAX_PAGE, { message: `page must not be greater than ${MAX_PAGE}` })
  @Min(1, { message: 'page must not be less than 1' })
  @IsInt({ message: 'page must be an integer' })
  page?: number;

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
