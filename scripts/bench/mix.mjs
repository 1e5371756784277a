// Token bodies for the benchmark: a realistic, reproducible mix of types, containers, metadata and search indexes.
//
//   40% card_number             valid Luhn numbers (Visa 16, Mastercard 16, Amex 15, Discover 16)
//   25% social_security_number  123-45-6789 or 123456789 (default search indexes: full value, without dashes, last 4)
//   15% employer_id_number      12-3456789 or 123456789 (the same default search indexes)
//   20% token                   JSON data with custom search indexes {{ data.email }} and {{ data.customer_ref }}
// Containers: the type's default (omitted) half of the time, else 1–2 of a small set. 0–3 metadata pairs.
// Every generated value carries a per-run serial or 30+ bits of randomness, so data and fingerprints are (nearly) unique.

export const CONTAINERS = ['/pci/high/', '/pii/high/', '/general/high/', '/customers/eu/', '/customers/us/'];
export const CONTAINER_PREFIXES = ['/customers/', '/customers/eu/', '/pii/', '/pci/', '/general/'];
const REGIONS = ['eu', 'us', 'apac', 'latam'];
const CHANNELS = ['web', 'mobile', 'pos', 'batch', 'partner'];
const TIERS = ['gold', 'silver', 'bronze'];
const METADATA_KEYS = ['customer_id', 'region', 'channel', 'tier'];

/** mulberry32: a small, fast, seedable PRNG, so two runs with the same --seed send the same bodies. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n); // 0..n-1
  next.pick = (list) => list[Math.floor(next() * list.length)];
  next.digits = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(48 + Math.floor(next() * 10));
    return s;
  };
  return next;
}

/** The Luhn check digit for a string of digits (the payload without its check digit). */
export function luhnCheckDigit(payload) {
  let sum = 0;
  for (let i = payload.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = payload.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function isLuhnValid(number) {
  return luhnCheckDigit(number.slice(0, -1)) === number.slice(-1);
}

function cardNumber(r) {
  const brand = r.int(10);
  let prefix;
  let length = 16;
  if (brand < 5) prefix = '4'; // Visa
  else if (brand < 8) prefix = String(51 + r.int(5)); // Mastercard 51–55
  else if (brand < 9) {
    prefix = r.pick(['34', '37']); // Amex
    length = 15;
  } else prefix = '6011'; // Discover
  const payload = prefix + r.digits(length - 1 - prefix.length);
  return payload + luhnCheckDigit(payload);
}

function ssn(r) {
  const area = String(1 + r.int(899)).padStart(3, '0');
  const group = String(1 + r.int(99)).padStart(2, '0');
  const serial = String(1 + r.int(9999)).padStart(4, '0');
  return r() < 0.7 ? `${area}-${group}-${serial}` : `${area}${group}${serial}`;
}

function ein(r) {
  const prefix = String(10 + r.int(89));
  const rest = r.digits(7);
  return r() < 0.7 ? `${prefix}-${rest}` : `${prefix}${rest}`;
}

/** Creates token bodies; `customers` sizes the customer_id space (about 5 tokens per customer id). */
export function tokenMix({ seed = 1, customers = 20000 } = {}) {
  const r = rng(seed);
  let serial = 0;

  const containers = () => {
    if (r() < 0.5) return undefined; // the type's default container
    const first = r.pick(CONTAINERS);
    if (r() < 0.7) return [first];
    const second = r.pick(CONTAINERS);
    return second === first ? [first] : [first, second];
  };

  const metadata = () => {
    const count = r.int(4); // 0..3 pairs
    if (count === 0) return undefined;
    const keys = [...METADATA_KEYS];
    const out = {};
    for (let i = 0; i < count; i++) {
      const key = keys.splice(r.int(keys.length), 1)[0];
      if (key === 'customer_id') out[key] = `cust_${1 + r.int(customers)}`;
      else if (key === 'region') out[key] = r.pick(REGIONS);
      else if (key === 'channel') out[key] = r.pick(CHANNELS);
      else out[key] = r.pick(TIERS);
    }
    return out;
  };

  /** One body: a plain object ready for JSON.stringify (undefined fields are left out). */
  return function next() {
    serial++;
    const roll = r();
    const body = {};
    if (roll < 0.4) {
      body.type = 'card_number';
      body.data = cardNumber(r);
    } else if (roll < 0.65) {
      body.type = 'social_security_number';
      body.data = ssn(r);
    } else if (roll < 0.8) {
      body.type = 'employer_id_number';
      body.data = ein(r);
    } else {
      body.type = 'token';
      const id = `${serial.toString(36)}${r.digits(6)}`;
      body.data = {
        email: `user.${id}@example.com`,
        name: `Customer ${id}`,
        phone: `+1${r.digits(10)}`,
        customer_ref: `ref-${id}`,
        address: { country: r.pick(['US', 'DE', 'FR', 'GB', 'BR', 'JP']), postal_code: r.digits(5) },
        marketing_opt_in: r() < 0.5,
      };
      body.search_indexes = ['{{ data.email }}', '{{ data.customer_ref }}'];
    }
    const c = containers();
    if (c) body.containers = c;
    const m = metadata();
    if (m) body.metadata = m;
    return body;
  };
}

/** The values a token can be found by with `data:` (full value) and the last 4 digits; null for card numbers. */
export function searchableValues(body) {
  if (body.type === 'social_security_number' || body.type === 'employer_id_number') {
    return { full: body.data, last4: body.data.replace(/-/g, '').slice(-4) };
  }
  if (body.type === 'token') return { full: body.data.email, last4: null };
  return null;
}
