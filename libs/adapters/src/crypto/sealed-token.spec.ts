// From request body to stored event with the real engine, crypto and key store: no plaintext ever reaches the event.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DataKeyUnavailableError,
  decideToken,
  initialTokenState,
  parseTokenData,
  tokenContent,
  validateCreateToken,
  type CommandContext,
  type TokenCreated,
} from '@vault/domain';
import { LiquidExpressionEngine } from '../expressions/liquid-expression-engine';
import { AesGcmTokenCrypto } from './aes-gcm-token-crypto';
import { SqliteKeyStore } from './sqlite-key-store';

const TENANT = '7e57e57e-0000-4000-8000-000000000001';
const TOKEN_ID = 'b0b0b0b0-0000-4000-8000-000000000001';
const ctx: CommandContext = {
  tenantId: TENANT,
  actor: { type: 'application', id: 'app-1' },
  now: new Date('2024-05-01T00:00:00Z'),
  correlationId: 'c-1',
};

let dir: string;
let keys: SqliteKeyStore;
let crypto: AesGcmTokenCrypto;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vault-sealed-'));
  keys = SqliteKeyStore.open(dir);
  crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
});
afterEach(() => {
  keys.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the application layer's create handler does, in order. */
const create = async (body: unknown): Promise<TokenCreated> => {
  const { draft, prepared } = validateCreateToken(body, { now: ctx.now, engine: new LiquidExpressionEngine() });
  const sealed = {
    encrypted: await crypto.encrypt(TENANT, TOKEN_ID, prepared.plaintext),
    masked: prepared.masked === null ? null : await crypto.encrypt(TENANT, TOKEN_ID, prepared.masked, 'mask'),
    fingerprint: crypto.fingerprint(TENANT, draft.type, prepared.fingerprint_input),
    search_hashes: prepared.search_values.map((value) => crypto.searchHash(TENANT, value)),
  };
  const content = tokenContent(draft, sealed);
  const [event] = decideToken({ type: 'CreateToken', data: { id: TOKEN_ID, content } }, initialTokenState(), ctx);
  return event as TokenCreated;
};

it('stores an SSN token with neither the number nor its search patterns in the event', async () => {
  const event = await create({ type: 'social_security_number', data: '123-45-6789' });
  const stored = JSON.stringify(event);
  for (const fragment of ['123-45-6789', '123456789']) expect(stored).not.toContain(fragment);
  // Short fragments are looked for outside the random outputs (envelopes, keyed hashes), where they turn up by chance:
  // a search hash "…467898a…" holds "6789" about once in 300 runs. What those outputs are is checked below.
  const withoutRandomOutputs = JSON.stringify({
    ...event,
    data: { ...event.data, encrypted: '<sealed>', masked: '<sealed>', fingerprint: '<hmac>', search_hashes: event.data.search_hashes.map(() => '<hmac>') },
  });
  for (const fragment of ['12345', '45-6789', 'XXX-XX', '6789']) expect(withoutRandomOutputs).not.toContain(fragment);
  expect(await crypto.decrypt(TENANT, TOKEN_ID, event.data.masked!, 'mask')).toBe('XXX-XX-6789');
  // The mask is bound to its purpose: it does not open as the data, nor the data as the mask.
  await expect(crypto.decrypt(TENANT, TOKEN_ID, event.data.masked!)).rejects.toBeInstanceOf(DataKeyUnavailableError);
  await expect(crypto.decrypt(TENANT, TOKEN_ID, event.data.encrypted, 'mask')).rejects.toBeInstanceOf(DataKeyUnavailableError);
  expect(event.data.search_hashes).toEqual(['123-45-6789', '123456789', '6789'].map((v) => crypto.searchHash(TENANT, v)));
  expect(event.data.fingerprint).toBe(crypto.fingerprint(TENANT, 'social_security_number', '123456789'));
  expect(await crypto.decrypt(TENANT, TOKEN_ID, event.data.encrypted)).toBe('123-45-6789');
});

it('reveals a JSON token back as its value, until the token\'s key is destroyed', async () => {
  const data = { name: 'Ada Lovelace', ssn: '123-45-6789' };
  const event = await create({ type: 'token', data, search_indexes: ['{{ data.name }}'] });
  expect(JSON.stringify(event)).not.toMatch(/Lovelace|123-45/);
  const plaintext = await crypto.decrypt(TENANT, TOKEN_ID, event.data.encrypted);
  expect(parseTokenData('token', plaintext)).toEqual(data);

  await keys.destroy(TENANT, TOKEN_ID);
  await expect(crypto.decrypt(TENANT, TOKEN_ID, event.data.encrypted)).rejects.toBeInstanceOf(DataKeyUnavailableError);
});
