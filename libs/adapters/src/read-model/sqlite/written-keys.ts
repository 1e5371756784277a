// Which document keys a rebuild has written so far, as 32-bit hashes in an open-addressing table (about 8 bytes a key
// instead of a string each: a million tokens and their audit entries fit in some 16 MB). A key whose hash is absent
// was certainly never written, so its document cannot be in the fresh file; a present hash only means "perhaps".

const EMPTY = 0;

/** FNV-1a over the UTF-16 code units; never 0, which marks an empty slot. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

export class WrittenKeys {
  private slots = new Uint32Array(1024);
  private count = 0;

  add(key: string): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    if (this.insert(this.slots, hashOf(key))) this.count += 1;
  }

  /** False: `key` was never added. True: it probably was (or another key with the same hash). */
  mayHave(key: string): boolean {
    const hash = hashOf(key);
    const mask = this.slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const slot = this.slots[i];
      if (slot === EMPTY) return false;
      if (slot === hash) return true;
    }
  }

  /** Adds `hash` unless present; whether it was added. */
  private insert(slots: Uint32Array, hash: number): boolean {
    const mask = slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      if (slots[i] === hash) return false;
      if (slots[i] === EMPTY) {
        slots[i] = hash;
        return true;
      }
    }
  }

  private grow(): void {
    const next = new Uint32Array(this.slots.length * 2);
    for (const hash of this.slots) if (hash !== EMPTY) this.insert(next, hash);
    this.slots = next;
  }
}
