// The audit log's read model: one document per audited event (writes of every aggregate and the access records), the
// entry auditEntryOf makes of it plus its place in the log. It follows the same events as the other projections: no
// second write path.
import { AUDITED_EVENT_TYPES, auditEntryOf, type AuditEntry } from '@vault/domain';
import type { LogPosition } from '../ports/event-store';
import type { Projection } from './projection';

/** An entry as the read model keeps it: `sort_key` orders entries of one millisecond; callers never see it. */
export type AuditDocument = AuditEntry & { sort_key: string };

/**
 * The event's log position as 40 decimal digits (commit, then prepare, each zero-padded to 20: a bigint position is at
 * most 2^64), so that string order is log order in every adapter. Unique per event and stable across rebuilds, it is
 * also the document's id (letters, digits, `-` and `_` only, as Meilisearch ids must be).
 */
export const auditSortKey = (position: LogPosition): string =>
  position.commit.toString().padStart(20, '0') + position.prepare.toString().padStart(20, '0');

/** The entry without its internal sort key, as GET /logs answers it. */
export const auditEntryFrom = ({ sort_key: _sortKey, ...entry }: AuditDocument): AuditEntry => entry;

export const auditProjection: Projection<AuditDocument> = {
  collection: 'audit',
  eventTypes: AUDITED_EVENT_TYPES,
  documentId: (event) => auditSortKey(event.position),
  // An event no tenant's log holds (an official formula's) leaves no document.
  evolve(_doc, event) {
    const entry = auditEntryOf(event);
    return entry && { ...entry, sort_key: auditSortKey(event.position) };
  },
};
