// The access records of one request, as the handlers that show plaintext build them: the caller's tenant, application
// and clock, and what was accessed (ids, counts and fixed texts only).
import type { AccessRecordedData } from '@vault/domain';
import type { AccessLog } from '../ports/access-log';
import { actorOf } from '../authentication/principal';
import type { Caller } from '../shared/use-case';

export type Access = Omit<AccessRecordedData, 'tenant_id' | 'created_at'>;

/** Awaited before the answer leaves: a record without an answer is acceptable, an answer without a record is not. */
export const recordAccess = (log: AccessLog, caller: Caller, accesses: readonly Access[]): Promise<void> =>
  log.record(
    accesses.map((access) => ({ tenant_id: caller.principal.tenantId, ...access, created_at: caller.now.toISOString() })),
    actorOf(caller.principal),
  );
