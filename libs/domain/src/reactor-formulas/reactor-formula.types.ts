// The data a reactor formula is made of, shared by commands, events and state.

export const FORMULA_TYPES = ['official', 'private'] as const;
export type FormulaType = (typeof FORMULA_TYPES)[number];

export const FORMULA_STATUSES = ['verified', 'coming_soon'] as const;
export type FormulaStatus = (typeof FORMULA_STATUSES)[number];

/** The value types a configuration setting or a request parameter may declare. */
export const FORMULA_VALUE_TYPES = ['string', 'boolean', 'number'] as const;
export type FormulaValueType = (typeof FORMULA_VALUE_TYPES)[number];

export interface ConfigurationElement {
  /** Flat name: configuration has no nested objects, so never contains `.`. */
  name: string;
  description: string | null;
  type: FormulaValueType;
}

export interface RequestParameterElement {
  /** Dotted path into `args`, e.g. `card.number`. */
  name: string;
  description: string | null;
  type: FormulaValueType;
  optional: boolean;
}

/** A create/update request body after validation, with defaults filled in (`description: null`, `optional: false`). */
export interface ValidFormulaInput {
  name: string;
  description: string | null;
  type: FormulaType;
  /** `data:image/png|jpg|jpeg;base64,…`, already checked to hold an image of that type. */
  icon: string | null;
  code: string;
  configuration: ConfigurationElement[];
  request_parameters: RequestParameterElement[];
}

/** Every field a formula has, whoever wrote it. Official formulas have `tenant_id: null`. */
export interface ReactorFormulaFields extends ValidFormulaInput {
  id: string;
  tenant_id: string | null;
  status: FormulaStatus;
}
