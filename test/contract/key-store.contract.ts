// The behaviour every KeyStore adapter must have; one spec per adapter runs it against a fresh store.
import type { KeyStore } from '@vault/application';

export interface KeyStoreFixture {
  store: KeyStore;
  close(): void;
}

const TENANT = 'tenant-a';
const OTHER_TENANT = 'tenant-b';
const TOKEN = '0b9d4c3e-6c1f-4a53-9a0e-5f1a2b3c4d5e';
const key = (fill: number) => new Uint8Array(61).fill(fill);

export const describeKeyStoreContract = (name: string, open: () => KeyStoreFixture): void =>
  describe(`${name} (KeyStore contract)`, () => {
    let fixture: KeyStoreFixture;
    beforeEach(() => {
      fixture = open();
    });
    afterEach(() => fixture.close());

    it('has no key for a token it never stored', async () => {
      expect(await fixture.store.get(TENANT, TOKEN)).toBeNull();
    });

    it('returns the key it stored', async () => {
      expect(await fixture.store.put(TENANT, TOKEN, key(1))).toEqual(key(1));
      expect(await fixture.store.get(TENANT, TOKEN)).toEqual(key(1));
    });

    it('keeps the first key when a second is put for the same token, and returns the first', async () => {
      await fixture.store.put(TENANT, TOKEN, key(1));
      expect(await fixture.store.put(TENANT, TOKEN, key(2))).toEqual(key(1));
      expect(await fixture.store.get(TENANT, TOKEN)).toEqual(key(1));
    });

    it('agrees on one key when two first puts race', async () => {
      const [a, b] = await Promise.all([fixture.store.put(TENANT, TOKEN, key(1)), fixture.store.put(TENANT, TOKEN, key(2))]);
      expect(a).toEqual(b);
    });

    it('keeps tenants apart', async () => {
      await fixture.store.put(TENANT, TOKEN, key(1));
      expect(await fixture.store.get(OTHER_TENANT, TOKEN)).toBeNull();
      await fixture.store.destroy(OTHER_TENANT, TOKEN);
      expect(await fixture.store.get(TENANT, TOKEN)).toEqual(key(1));
    });

    it('forgets a destroyed key, and destroying again is harmless', async () => {
      await fixture.store.put(TENANT, TOKEN, key(1));
      await fixture.store.destroy(TENANT, TOKEN);
      expect(await fixture.store.get(TENANT, TOKEN)).toBeNull();
      await expect(fixture.store.destroy(TENANT, TOKEN)).resolves.toBeUndefined();
    });
  });
