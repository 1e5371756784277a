// The data a reactor is made of, and the snapshots of the formula and the application it refers
// to, which the application layer reads before deciding (the decider does no I/O).
import type { ApplicationType } from '../permissions/permission-catalogue';
import type { ConfigurationElement, FormulaStatus, FormulaType, FormulaValueType } from '../reactor-formulas/reactor-formula.types';
import type { EncryptedData } from '../tokens/sealed-data';

/** One configuration value as a client sends it: the formula declares which of these types it is. */
export type ConfigurationValue = string | boolean | number;

/**
 * A reactor's configuration in plaintext, setting name → value. Values are secrets (upstream API keys): this object
 * lives only in memory, between validation and sealing, and between opening and running the code. Built with
 * Object.fromEntries, so a setting named `__proto__` is an own property like any other.
 */
export type ReactorConfiguration = Record<string, ConfigurationValue>;

/**
 * The shape of a reactor's configuration: which settings it holds and their declared types, never their values. It is
 * not secret (it equals the formula's contract, which every reader of the formula sees), so events and read models keep
 * it in plaintext next to the sealed values: whether a formula change breaks a reactor is then decided without
 * decrypting anything (see reactorsBrokenByFormulaChange). In the formula's declaration order.
 */
export type ConfigurationShape = ConfigurationShapeEntry[];

export interface ConfigurationShapeEntry {
  name: string;
  type: FormulaValueType;
}

/**
 * Everything a create or an update sets, computed by the application layer before decide: the configuration is sealed
 * (the handler encrypts the JSON text of the validated configuration), its shape comes from the validation.
 */
export interface ReactorContent {
  name: string;
  configuration: EncryptedData;
  configuration_shape: ConfigurationShape;
  /** The private application of the tenant whose rules tokenize the code's `tokenize` output; null: the caller's. */
  application_id: string | null;
}

/**
 * What the rules need to know about the formula, read by the handler before deciding. A ReactorFormula (the formula's
 * state or read-model document) is one. null stands for a formula that does not exist or was deleted: both are
 * "no such formula" to a reactor.
 */
export interface ReactorFormulaSnapshot {
  id: string;
  type: FormulaType;
  /** null for official formulas, which every tenant may use. */
  tenant_id: string | null;
  status: FormulaStatus;
  /** The configuration contract. */
  configuration: Pick<ConfigurationElement, 'name' | 'type'>[];
}

/**
 * What the rules need to know about the reactor's application, read by the handler before deciding. An
 * ApplicationState is one. null (or `deleted: true`) stands for an application that does not exist.
 */
export interface ReactorApplicationSnapshot {
  id: string;
  tenant_id: string;
  type: ApplicationType;
  deleted?: boolean;
}
