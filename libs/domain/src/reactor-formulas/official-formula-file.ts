// The file format of a shipped official formula (formulas/official/*.json): a formula body plus its fixed id and status.
import { FieldErrorCollector, validationError } from '../shared/errors';
import { isUuid } from '../shared/uuid';
import { isJsonObject, jsonTypeOf, readEnum } from '../shared/json-shape';
import { readFormulaInput } from './reactor-formula.validate';
import { FORMULA_STATUSES, type FormulaStatus, type ValidFormulaInput } from './reactor-formula.types';
import type { ImportOfficialFormula } from './reactor-formula.decide';

export interface OfficialFormulaFile {
  /** Fixed in the file, so importing it again updates the formula instead of adding a copy. */
  id: string;
  status: FormulaStatus;
  input: ValidFormulaInput;
}

/**
 * Validates a parsed official formula file with the same rules as a create request, plus `id` (a UUID, returned
 * lower-cased), `status` and `type: "official"`. Throws one DomainError 'validation' listing every problem.
 */
export const validateOfficialFormulaFile = (file: unknown): OfficialFormulaFile => {
  if (!isJsonObject(file)) {
    throw validationError({ body: [`An official formula file must hold a JSON object, not ${jsonTypeOf(file)}.`] });
  }
  const errors = new FieldErrorCollector();
  const id = file.id;
  if (typeof id !== 'string' || !isUuid(id)) {
    errors.add('id', id === undefined ? 'id is required: a UUID string.' : `id must be a UUID string, not ${jsonTypeOf(id) === 'a string' ? 'another string' : jsonTypeOf(id)}.`);
  }
  const status = readEnum(file, 'status', FORMULA_STATUSES, 'status', errors);
  const input = readFormulaInput(file, errors, ['id', 'status']);
  if (input.type === 'private') errors.add('type', 'type must be official in an official formula file.');
  errors.throwIfAny();
  return { id: (id as string).toLowerCase(), status: status as FormulaStatus, input: input as ValidFormulaInput };
};

/** The command that imports a validated file. */
export const importOfficialFormulaCommand = ({ id, status, input }: OfficialFormulaFile): ImportOfficialFormula => ({
  type: 'ImportOfficialFormula',
  data: { id, status, input },
});
