import { DomainError } from '../shared/errors';
import { parseAuditDate, readAuditLogFilter, type AuditLogParams } from './audit-log-query';

const ID = 'B0B0B0B0-0000-4000-8000-0000000000CC';
const ms = (iso: string) => Date.parse(iso);

const errorsOf = (params: AuditLogParams) => {
  try {
    readAuditLogFilter(params);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors;
  }
  throw new Error('expected a validation error');
};

describe('parseAuditDate', () => {
  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z', '2024-05-01T23:59:59.999Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z', '2024-02-29T23:59:59.999Z'],
    ['2024-05-01T10:00Z', '2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:05Z', '2024-05-01T10:00:05.000Z', '2024-05-01T10:00:05.000Z'],
    ['2024-05-01T10:00:05.12Z', '2024-05-01T10:00:05.120Z', '2024-05-01T10:00:05.120Z'],
    ['2024-05-01T10:00:05.123456z', '2024-05-01T10:00:05.123Z', '2024-05-01T10:00:05.123Z'],
    ['2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00.000Z', '2024-05-01T08:00:00.000Z'],
    ['2024-05-01T00:30:00-01:30', '2024-05-01T02:00:00.000Z', '2024-05-01T02:00:00.000Z'],
    ['1970-01-01', '1970-01-01T00:00:00.000Z', '1970-01-01T23:59:59.999Z'],
  ])('%s covers %s to %s', (text, first, last) => {
    expect(parseAuditDate(text)).toEqual({ first: ms(first), last: ms(last) });
  });

  it('reads years 0-99 as themselves, not as 19xx', () => {
    expect(parseAuditDate('0050-01-01')?.first).toBe(Date.parse('0050-01-01T00:00:00.000Z'));
    expect(new Date(parseAuditDate('0050-01-01')!.first).getUTCFullYear()).toBe(50);
  });

  it.each([
    'yesterday',
    '2024-5-1',
    '2024-13-01',
    '2024-02-30',
    '2023-02-29',
    '2024-05-01T10:00:00',
    '2024-05-01T24:00:00Z',
    '2024-05-01T10:60:00Z',
    '2024-05-01T10:00:60Z',
    '2024-05-01T10:00:00+24:00',
    '2024-05-01 10:00:00Z',
    ' 2024-05-01',
    '1714557600000',
  ])('refuses %j', (text) => {
    expect(parseAuditDate(text)).toBeNull();
  });
});

describe('readAuditLogFilter', () => {
  it('takes no filter from absent parameters', () => {
    expect(readAuditLogFilter({})).toEqual({});
  });

  it('refuses an empty parameter, naming it, rather than reading it as no filter', () => {
    const empty = (name: string) => [`${name} must not be empty; leave it out for no filter`];
    expect(errorsOf({ entity_type: '', entity_id: '', start_date: '', end_date: '' })).toEqual({
      entity_type: empty('entity_type'),
      entity_id: empty('entity_id'),
      start_date: empty('start_date'),
      end_date: empty('end_date'),
    });
  });

  it('reads every filter: the entity id lower-cased, both dates inclusive', () => {
    expect(readAuditLogFilter({ entity_type: 'reactor_formula', entity_id: ID, start_date: '2024-05-01', end_date: '2024-05-01' })).toEqual({
      entity_type: 'reactor_formula',
      entity_id: ID.toLowerCase(),
      start_date: new Date('2024-05-01T00:00:00.000Z'),
      end_date: new Date('2024-05-01T23:59:59.999Z'),
    });
  });

  it('accepts a start equal to the end', () => {
    const at = '2024-05-01T10:00:00Z';
    expect(readAuditLogFilter({ start_date: at, end_date: at })).toEqual({ start_date: new Date(at), end_date: new Date(at) });
  });

  it.each([
    [{ entity_type: 'tokens' }, 'entity_type', 'entity_type must be one of token, application, reactor, reactor_formula, proxy, webhook, tenant'],
    [{ entity_type: 'TOKEN' }, 'entity_type', 'entity_type must be one of token, application, reactor, reactor_formula, proxy, webhook, tenant'],
    [{ entity_id: 'not-a-uuid' }, 'entity_id', 'entity_id must be a UUID'],
    [{ start_date: '2024-13-01' }, 'start_date', expect.stringContaining('start_date must be an ISO 8601 date')],
    [{ end_date: 'tomorrow' }, 'end_date', expect.stringContaining('end_date must be an ISO 8601 date')],
    [{ start_date: '2024-05-02', end_date: '2024-05-01' }, 'start_date', 'start_date must not be after end_date'],
    [{ start_date: '2024-05-01T10:00:00.001Z', end_date: '2024-05-01T10:00:00Z' }, 'start_date', 'start_date must not be after end_date'],
  ] as Array<[AuditLogParams, string, unknown]>)('%j is a 400 naming %s', (params, field, message) => {
    expect(errorsOf(params)).toEqual({ [field]: [message] });
  });

  it('names every bad parameter at once', () => {
    expect(Object.keys(errorsOf({ entity_type: 'x', entity_id: 'y', start_date: 'z', end_date: 'w' }) ?? {})).toEqual([
      'entity_type',
      'entity_id',
      'start_date',
      'end_date',
    ]);
  });
});
