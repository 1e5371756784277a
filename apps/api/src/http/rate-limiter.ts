// A token bucket per API key (or per proxy key and client address): `ratePerSecond` refill, a burst of twice that.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();
  private readonly capacity: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number = () => Date.now(),
    /** Keys kept at most: past it, buckets that have refilled whole are forgotten (they would start full anyway). */
    private readonly maxKeys = 100_000,
  ) {
    this.capacity = ratePerSecond * 2;
  }

  /** Takes one request from `key`'s bucket; returns 0 when allowed, else the seconds to wait. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, updated: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.updated) / 1000) * this.ratePerSecond);
    bucket.updated = now;
    if (!this.buckets.has(key) && this.buckets.size >= this.maxKeys) this.forgetFull(now);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
  }

  private forgetFull(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updated) / 1000) * this.ratePerSecond >= this.capacity) this.buckets.delete(key);
    }
    // Still full (keys made faster than buckets refill): the oldest go, so memory stays bounded whatever the keys.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys * 0.9) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The one bucket per API key every route takes from (the access guard's, and the proxy invocation's, which authenticates
 * by itself): a key gets VAULT_RATE_LIMIT_PER_SECOND in all, not once per place that checks it.
 */
export const API_KEY_RATE_LIMITER = Symbol('ApiKeyRateLimiter');
