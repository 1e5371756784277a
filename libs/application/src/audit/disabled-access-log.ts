// VAULT_AUDIT_ACCESS_RECORDS=false: no access records at all. For measuring their cost only; PCI DSS 10.2 needs them.
import type { AccessLog } from '../ports/access-log';

export const disabledAccessLog: AccessLog = { record: async () => undefined };
