// The largest append the vault makes: a formula imported with every field at the domain's limit, each character
// of its texts one that JSON escapes to six bytes. The event store must take it, and the compose file's
// EVENTSTORE_MAX_APPEND_SIZE must leave room above it.
import { randomUUID } from 'node:crypto';
import {
  decideReactorFormula,
  formulaStream,
  initialReactorFormulaState,
  MAX_CONFIGURATION_ELEMENTS,
  MAX_ELEMENT_DESCRIPTION_LENGTH,
  MAX_ELEMENT_NAME_LENGTH,
  MAX_FORMULA_CODE_LENGTH,
  MAX_FORMULA_DESCRIPTION_LENGTH,
  MAX_FORMULA_NAME_LENGTH,
  MAX_ICON_BYTES,
  MAX_REQUEST_PARAMETERS,
  validateFormulaInput,
} from '@vault/domain';
import { pngIcon } from '@vault/domain/reactor-formulas/formula-icon.builders';
import type { EventToAppend } from '@vault/application';

/** U+0001: one code point for the length limits, `\u0001` (six bytes) once serialised as JSON. */
const WIDEST = '\u0001';

/** `prefix` followed by WIDEST up to `length` code points. */
const filled = (prefix: string, length: number) => prefix + WIDEST.repeat(length - prefix.length);

export function largestAppend(): { streamId: string; events: EventToAppend[] } {
  const id = randomUUID();
  const input = validateFormulaInput({
    name: filled('n', MAX_FORMULA_NAME_LENGTH),
    description: filled('', MAX_FORMULA_DESCRIPTION_LENGTH),
    type: 'official',
    icon: pngIcon(MAX_ICON_BYTES),
    code: filled('module.exports = function () {}; //', MAX_FORMULA_CODE_LENGTH),
    configuration: Array.from({ length: MAX_CONFIGURATION_ELEMENTS }, (_, i) => ({
      name: filled(`c${i}`, MAX_ELEMENT_NAME_LENGTH),
      description: filled('', MAX_ELEMENT_DESCRIPTION_LENGTH),
      type: 'string',
    })),
    request_parameters: Array.from({ length: MAX_REQUEST_PARAMETERS }, (_, i) => ({
      name: filled(`p${i}`, MAX_ELEMENT_NAME_LENGTH),
      description: filled('', MAX_ELEMENT_DESCRIPTION_LENGTH),
      type: 'string',
      optional: true,
    })),
  });
  const now = new Date('2024-05-01T10:00:00.000Z');
  const ctx = { tenantId: null, actor: { type: 'operator', id: 'cli' } as const, now, correlationId: randomUUID() };
  const decided = decideReactorFormula({ type: 'ImportOfficialFormula', data: { id, input, status: 'verified' } }, initialReactorFormulaState(), ctx);
  const metadata = { tenant_id: null, actor: ctx.actor, timestamp: now.toISOString(), correlation_id: ctx.correlationId };
  return { streamId: formulaStream(id), events: decided.map((e) => ({ type: e.type, data: e.data, metadata })) };
}

/**
 * Bytes EventStoreDB counts against MaxAppendSize: the JSON data and metadata as UTF-8, and the type at two bytes a
 * character (`Event.SizeOnDisk`; servers before the KurrentDB fix count the data alone, which is less).
 */
export const appendSize = (events: EventToAppend[]): number =>
  events.reduce(
    (sum, e) => sum + Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata)) + e.type.length * 2,
    0,
  );
