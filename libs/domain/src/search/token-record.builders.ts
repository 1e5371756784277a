// TEST SUPPORT ONLY (never exported from index.ts): a token record as search reads it, every field set to something
// plain, so that a test names only what it is about. A token read-model document is a token record.
import { randomUUID } from 'node:crypto';
import type { TokenRecord } from '../tokens/token.state';

const ENVELOPE = { v: 1, alg: 'AES-256-GCM', key_ref: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' } as const;

export function aTokenRecord(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id: randomUUID(),
    tenant_id: 'tenant-a',
    type: 'token',
    encrypted: { ...ENVELOPE },
    fingerprint: 'Fp1',
    fingerprint_expression: '{{ data | stringify }}',
    mask: null,
    masked: null,
    containers: ['/general/high/'],
    metadata: {},
    search_indexes: [],
    search_hashes: [],
    expires_at: null,
    created_by: 'app-1',
    created_at: '2024-01-15T10:00:00.000Z',
    modified_by: null,
    modified_at: null,
    ...overrides,
  };
}
