// Where access records go (the audit log of GET /logs): reads that returned plaintext, uses of token data in reactors and
// reactor invocations, appended as AccessRecorded events to the tenant's audit stream.
import type { AccessRecordedData, Actor } from '@vault/domain';

export interface AccessLog {
  /**
   * Resolves once every record is durable in the event log, and rejects when any of them could not be written: a caller
   * awaits it before it answers, so no plaintext leaves without its record (a record without an answer is acceptable).
   * The records hold ids, counts and fixed texts only, never data, query values, args or configuration values.
   */
  record(records: readonly AccessRecordedData[], actor: Actor): Promise<void>;
}
