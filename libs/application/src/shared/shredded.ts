// Crypto-shredding as a reader meets it: opening something whose data key, or whose tenant's key, a deletion later in
// the log has destroyed.
import { DataKeyUnavailableError, DomainError } from '@vault/domain';

/** The key of the token, reactor or formula (or of its whole tenant) is destroyed. */
export const isShredded = (error: unknown): boolean =>
  error instanceof DataKeyUnavailableError || (error instanceof DomainError && error.kind === 'unauthenticated');
