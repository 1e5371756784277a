// The check of a reaction's `args` against its formula's request parameters: every non-optional parameter present,
// every declared one of its type.
import { FieldErrorCollector, validationError } from '../shared/errors';
import { isJsonObject } from '../shared/json-shape';
import type { RequestParameterElement } from '../reactor-formulas/reactor-formula.types';

/**
 * Every non-optional parameter must be present, and every declared one present must be of its type; `card.number` is
 * `args.card.number`. A null is present, and of no declared type: `args.amount: null` is a 400 whether the parameter is
 * optional or not (only leaving it out is what `optional` allows). Undeclared properties pass unchecked, and with no declared parameters any
 * payload passes. Throws one DomainError 'validation' naming every `args.<path>`.
 *
 * The caller runs it on the detokenized args: a parameter declared `number` may be sent as `{{ <token id> }}`, and
 * only the token's data can say whether it is a number. So that a rejection says no more about that data than the
 * invoked code would get anyway, messages give the declared type, never the type or the value that was found.
 */
export const checkReactorArgs = (
  args: unknown,
  requestParameters: readonly Pick<RequestParameterElement, 'name' | 'type' | 'optional'>[],
): void => {
  if (requestParameters.length === 0) return;
  const given = args === undefined || args === null ? {} : args;
  if (!isJsonObject(given)) throw validationError({ args: ['args must be an object.'] });
  const errors = new FieldErrorCollector();
  for (const { name, type, optional } of requestParameters) {
    const path = `args.${name}`;
    const value = valueAt(given, name);
    if (value === undefined) {
      if (!optional) errors.add(path, `${path} is required.`);
    } else if (!hasType(value, type)) {
      errors.add(path, `${path} must be a ${type}.`);
    }
  }
  errors.throwIfAny();
};

/** The value at a dotted path through own properties of objects (an array or a value on the way: nothing there). */
const valueAt = (args: Record<string, unknown>, name: string): unknown => {
  let value: unknown = args;
  for (const segment of name.split('.')) {
    if (!isJsonObject(value) || !Object.hasOwn(value, segment)) return undefined;
    value = value[segment];
  }
  return value;
};

const hasType = (value: unknown, type: RequestParameterElement['type']): boolean =>
  type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === type;
