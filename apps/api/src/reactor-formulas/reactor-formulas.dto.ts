// The query of GET /reactor-formulas, and of GET /reactors. Formula bodies are validated by the domain, so they have no DTO.
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '../http/pagination';

/**
 * The type check sits closest to the property: decorators register bottom-up and the pipe stops at the first failure.
 * A NUL (`%00`) in `name` is a 400: SQLite's LIKE reads its pattern only up to the first NUL, so `%00Alpha` would
 * otherwise match every name, and `Al%00x` every name containing `al`. An empty `name=` is a 400 too, as every list's
 * empty filter is: a filter left blank by mistake, not a request for the whole list.
 */
export class FormulaListParams extends PageQuery {
  @IsOptional()
  @Matches(/^[^\u0000]*$/, { message: 'name must not contain the NUL character (%00)' })
  @MaxLength(200, { message: 'name must be at most 200 characters long' })
  @MinLength(1, { message: 'name must not be empty; leave it out for no filter' })
  @IsString({ message: 'name must be a string' })
  name?: string;
}
