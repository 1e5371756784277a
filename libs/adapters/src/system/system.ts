// The real clock, UUIDs and API keys.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKeys, Clock, IdGenerator } from '@vault/application';
import { base58Encode, type ApplicationType } from '@vault/domain';

export const systemClock: Clock = { now: () => new Date() };

export const uuidGenerator: IdGenerator = { newId: () => randomUUID() };

const PREFIX: Record<ApplicationType, string> = {
  public: 'key_pub_',
  private: 'key_prv_',
  expiring: 'key_exp_',
  management: 'key_mgt_',
};

export const apiKeys: ApiKeys = {
  generate: (type) => PREFIX[type] + randomBytes(32).toString('base64url'),
  // Keys carry 256 random bits, so a fast unsalted hash cannot be brute-forced; it keeps per-request lookups cheap.
  hash: (key) => createHash('sha256').update(key, 'utf8').digest('hex'),
  // 160 random bits in 27 or 28 base58 characters: URL- and header-safe, with nothing to mistake for an API key.
  generateProxyKey: () => base58Encode(randomBytes(20)),
};
