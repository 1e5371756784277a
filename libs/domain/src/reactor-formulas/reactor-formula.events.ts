// Reactor formula events: plain data, stored forever under these type strings. A private formula's name, description
// and code are kept in the log sealed under a key its tenant's key wraps, so deleting the tenant shreds them
// (SealedFormulaContentEventStore in libs/application: every reader of the log sees them as below).
import { eventTypesOf, type DomainEvent } from '../shared/events';
import type { ReactorFormulaFields } from './reactor-formula.types';

export interface ReactorFormulaCreatedData extends ReactorFormulaFields {
  created_by: string;
  /** ISO 8601. */
  created_at: string;
}

/** Carries the whole formula, not a diff: a PUT replaces every field and read models need no earlier event. */
export interface ReactorFormulaUpdatedData extends ReactorFormulaFields {
  modified_by: string;
  /** ISO 8601. */
  modified_at: string;
}

export interface ReactorFormulaDeletedData {
  id: string;
  deleted_by: string;
  /** ISO 8601. */
  deleted_at: string;
}

export type ReactorFormulaCreated = DomainEvent<'ReactorFormulaCreated', ReactorFormulaCreatedData>;
export type ReactorFormulaUpdated = DomainEvent<'ReactorFormulaUpdated', ReactorFormulaUpdatedData>;
export type ReactorFormulaDeleted = DomainEvent<'ReactorFormulaDeleted', ReactorFormulaDeletedData>;

export type ReactorFormulaEvent = ReactorFormulaCreated | ReactorFormulaUpdated | ReactorFormulaDeleted;

export const REACTOR_FORMULA_EVENT_TYPES = eventTypesOf<ReactorFormulaEvent['type']>({
  ReactorFormulaCreated: true,
  ReactorFormulaUpdated: true,
  ReactorFormulaDeleted: true,
});

export const isReactorFormulaEvent = (event: DomainEvent): event is ReactorFormulaEvent =>
  (REACTOR_FORMULA_EVENT_TYPES as readonly string[]).includes(event.type);

export const FORMULA_STREAM_PREFIX = 'formula-';

/** One stream per formula, official or private; the tenant lives in the events and their metadata. */
export const formulaStream = (id: string): string => FORMULA_STREAM_PREFIX + id;
