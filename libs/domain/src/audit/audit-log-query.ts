// The filters of GET /logs, read from query strings: each bad one is a 400 naming its parameter.
import { FieldErrorCollector } from '../shared/errors';
import { isUuid } from '../shared/uuid';
import { AUDIT_ENTITY_TYPES, type AuditEntityType } from './audit';

/** The query strings as they came: absent is no filter; empty is a 400 naming the parameter, never "no filter". */
export interface AuditLogParams {
  entity_type?: string;
  entity_id?: string;
  start_date?: string;
  end_date?: string;
}

/** Entries matching every filter given; both dates are inclusive, to the millisecond. */
export interface AuditLogFilter {
  entity_type?: AuditEntityType;
  entity_id?: string;
  start_date?: Date;
  end_date?: Date;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/i;
const DAY_MS = 86_400_000;
const EXPECTED = 'an ISO 8601 date (2024-05-01) or date-time with a time zone (2024-05-01T10:00:00Z)';

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil): no clock, no 0-99 year quirk. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const daysIn = (year: number, month: number): number =>
  [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;

/**
 * The first and last millisecond a written date or date-time names: a whole UTC day for a date, one millisecond for a
 * date-time (digits past the millisecond are cut). null when it is not one.
 */
export function parseAuditDate(text: string): { first: number; last: number } | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  const start = daysFromCivil(year, month, day) * DAY_MS;
  if (match[4] === undefined) return { first: start, last: start + DAY_MS - 1 };
  const [hours, minutes, seconds] = [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)];
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  const millis = Number((match[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const zone = match[8].toUpperCase();
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const [offsetHours, offsetMins] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const instant = start + ((hours * 60 + minutes - offsetMinutes) * 60 + seconds) * 1000 + millis;
  return { first: instant, last: instant };
}

/** The filters, or a validation error naming every bad parameter. */
export function readAuditLogFilter(params: AuditLogParams): AuditLogFilter {
  const errors = new FieldErrorCollector();
  const filter: AuditLogFilter = {};
  /** A parameter's value; `?entity_id=` is a filter left blank by mistake, not a request for the whole log. */
  const valueOf = (name: keyof AuditLogParams): string | undefined => {
    const value = params[name];
    if (value !== '') return value;
    errors.add(name, `${name} must not be empty; leave it out for no filter`);
    return undefined;
  };
  const [entityType, entityId, startDate, endDate] = [valueOf('entity_type'), valueOf('entity_id'), valueOf('start_date'), valueOf('end_date')];
  if (entityType !== undefined) {
    if ((AUDIT_ENTITY_TYPES as readonly string[]).includes(entityType)) filter.entity_type = entityType as AuditEntityType;
    else errors.add('entity_type', `entity_type must be one of ${AUDIT_ENTITY_TYPES.join(', ')}`);
  }
  if (entityId !== undefined) {
    // Every audited entity's id is a UUID; ids are stored lower-cased, as paths take them.
    if (isUuid(entityId)) filter.entity_id = entityId.toLowerCase();
    else errors.add('entity_id', 'entity_id must be a UUID');
  }
  const start = startDate === undefined ? undefined : parseAuditDate(startDate);
  const end = endDate === undefined ? undefined : parseAuditDate(endDate);
  if (start === null) errors.add('start_date', `start_date must be ${EXPECTED}`);
  if (end === null) errors.add('end_date', `end_date must be ${EXPECTED}`);
  if (start && end && start.first > end.last) errors.add('start_date', 'start_date must not be after end_date');
  errors.throwIfAny();
  if (start) filter.start_date = new Date(start.first);
  if (end) filter.end_date = new Date(end.last);
  return filter;
}
