// Dates and UTC date-times as half-open intervals of epoch milliseconds. Pure arithmetic on purpose:
// Date.UTC maps years 0-99 to 1900-1999, and nothing here may read the clock.
import type { DateField, DateRangeNode } from './query.ast';
import { QueryError } from './query.errors';
import type { Token } from './query.lexer';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|\+00:00)$/;
const DAY_MS = 86_400_000;
const EXPECTED_DATE = 'an ISO 8601 date (YYYY-MM-DD) or UTC date-time (YYYY-MM-DDTHH:MM:SS.sssZ)';

/** The earliest and latest instants a query can name: years 0000 to 9999, millisecond precision. */
export const MIN_INSTANT = daysFromCivil(0, 1, 1) * DAY_MS;
export const MAX_INSTANT = daysFromCivil(10000, 1, 1) * DAY_MS - 1;

/** What a written date covers: a whole UTC day for a date, one millisecond for a date-time. */
export interface Interval {
  start: number;
  end: number;
}

export const parseDateInterval = (text: string): Interval | null => {
  const date = DATE.exec(text);
  if (date) {
    const day = dayNumber(date[1], date[2], date[3]);
    return day === null ? null : { start: day * DAY_MS, end: (day + 1) * DAY_MS };
  }
  const time = DATE_TIME.exec(text);
  if (!time) return null;
  const day = dayNumber(time[1], time[2], time[3]);
  const [hours, minutes, seconds] = [Number(time[4]), Number(time[5]), Number(time[6] ?? 0)];
  if (day === null || hours > 23 || minutes > 59 || seconds > 59) return null;
  const millis = Number((time[7] ?? '0').padEnd(3, '0'));
  const start = day * DAY_MS + ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
  return { start, end: start + 1 };
};

/** `field:<date>` covers what the date covers. */
export const bareDateNode = (field: DateField, value: Token): DateRangeNode => {
  const interval = intervalOf(value);
  return { kind: 'date', field, gte: interval.start, lt: interval.end };
};

/**
 * `[` includes the whole lower interval and `{` starts after it ends; `]` includes the whole upper interval
 * and `}` stops where it starts. So `{2024-01-01` starts on Jan 2 and `2024-01-31]` ends as Feb 1 begins.
 */
export const dateRangeNode = (
  field: DateField,
  open: Token,
  lower: Token,
  upper: Token,
  close: Token,
): DateRangeNode => {
  const from = isOpenEnd(lower) ? null : intervalOf(lower);
  const to = isOpenEnd(upper) ? null : intervalOf(upper);
  return {
    kind: 'date',
    field,
    gte: from === null ? null : open.text === '[' ? from.start : from.end,
    lt: to === null ? null : close.text === ']' ? to.end : to.start,
  };
};

/** Writes a range back with full date-times, choosing brackets so that parsing it gives the same node. */
export const serializeDateRange = (node: DateRangeNode): string => {
  const lower = node.gte === null ? '[*' : formatLower(node.gte);
  const upper = node.lt === null ? '*]' : formatUpper(node.lt);
  return `${node.field}:${lower} TO ${upper}`;
};

// `[t` and `t}` name t itself. One past the end of year 9999 has no 4-digit spelling, so it is written
// as the bound just before it, `{t-1` or `t-1]`, which parses back to the same instant.
const formatLower = (gte: number): string => {
  const exact = formatInstant(gte);
  return exact !== null ? `[${exact}` : `{${formatPrevious(gte)}`;
};

const formatUpper = (lt: number): string => {
  const exact = formatInstant(lt);
  return exact !== null ? `${exact}}` : `${formatPrevious(lt)}]`;
};

const formatPrevious = (instant: number): string => {
  const text = formatInstant(instant - 1);
  if (text === null) throw new RangeError(`Instant ${instant} is outside what a query can express`);
  return text;
};

const formatInstant = (instant: number): string | null =>
  Number.isInteger(instant) && instant >= MIN_INSTANT && instant <= MAX_INSTANT
    ? new Date(instant).toISOString()
    : null;

const isOpenEnd = (token: Token): boolean => !token.quoted && token.value === '*';

const intervalOf = (token: Token): Interval => {
  if (token.value === '') throw new QueryError('Empty value', token.start + 1, 'a date');
  const interval = parseDateInterval(token.value);
  if (interval === null) throw new QueryError('Invalid date', token.start + 1, EXPECTED_DATE);
  return interval;
};

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const dayNumber = (yearText: string, monthText: string, dayText: string): number | null => {
  const [year, month, day] = [Number(yearText), Number(monthText), Number(dayText)];
  if (month < 1 || month > 12 || day < 1) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const length = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return day > length ? null : daysFromCivil(year, month, day);
};

// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}
