// fast-check generators for the leak property: applications with random access rules, token data of every type with
// high-entropy values from the secret alphabet (windows.ts), and the expressions picked per token type at run time.
import fc from 'fast-check';
import { isLuhnValid } from '@vault/domain';
import {
  AppSpec,
  RULE_CONTAINERS,
  RuleSpec,
  TOKEN_PERMISSIONS,
  TokenPermission,
  TokenType,
  Transform,
} from './model';
import { SECRET_ALPHABET } from './windows';

// ---- applications ----

const permissionSubset = (minLength = 1) =>
  fc.subarray([...TOKEN_PERMISSIONS] as TokenPermission[], { minLength, maxLength: TOKEN_PERMISSIONS.length });
const transform = fc.constantFrom<Transform>('reveal', 'mask', 'redact');
const ruleContainer = fc.constantFrom(...RULE_CONTAINERS);

const rule = (priority: number) =>
  fc.record({ container: ruleContainer, transform, permissions: permissionSubset() }).map((r): RuleSpec => ({ priority, ...r }));

const rulesArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 3 })
  .chain((priorities) => fc.tuple(...priorities.map(rule)));

/** Random rules; the application's own permissions are its rules' plus, sometimes, one more (endpoint access, no rule). */
const ruledApp: fc.Arbitrary<AppSpec> = fc
  .record({ rules: rulesArb, extra: fc.subarray([...TOKEN_PERMISSIONS] as TokenPermission[], { maxLength: 1 }) })
  .map(({ rules, extra }) => ({ rules, permissions: [...new Set([...rules.flatMap((r) => r.permissions), ...extra])] }));

/** Permissions and no rules: one mask rule on `/`. */
const rulelessApp: fc.Arbitrary<AppSpec> = permissionSubset().map((permissions) => ({ permissions, rules: [] }));

/** A rule on `/` with every permission (the shape of the reproductions' "full" app), under a random transform. */
const broadApp: fc.Arbitrary<AppSpec> = transform.map((t) => ({
  permissions: [...TOKEN_PERMISSIONS],
  rules: [{ priority: 5, container: '/', transform: t, permissions: [...TOKEN_PERMISSIONS] }],
}));

/** Reveal somewhere, a weaker transform on `/`: the shape container moves and deduplication probes need. */
const splitApp: fc.Arbitrary<AppSpec> = fc
  .record({
    reveal: fc.constantFrom('/pii/', '/pii/high/', '/pci/', '/general/high/', '/x/'),
    revealPermissions: permissionSubset(),
    rest: fc.constantFrom<Transform>('mask', 'redact'),
    restPermissions: permissionSubset(),
  })
  .map(({ reveal, revealPermissions, rest, restPermissions }) => ({
    permissions: [...new Set([...revealPermissions, ...restPermissions])],
    rules: [
      { priority: 1, container: reveal, transform: 'reveal' as const, permissions: revealPermissions },
      { priority: 2, container: '/', transform: rest, permissions: restPermissions },
    ],
  }));

const SHOWING: TokenPermission[] = ['token:create', 'token:read', 'token:update', 'token:search'];

/**
 * A reveal rule for permissions that show no data (delete, use) ahead of rules that do: whatever "what the caller's
 * rules show" means, such a rule must not license showing more through the others.
 */
const decoyApp: fc.Arbitrary<AppSpec> = fc
  .record({
    decoy: fc.subarray<TokenPermission>(['token:delete', 'token:use'], { minLength: 1 }),
    weak: fc.constantFrom('/pii/', '/pci/', '/general/'),
    weakTransform: fc.constantFrom<Transform>('mask', 'redact'),
    showing: fc.subarray(SHOWING, { minLength: 1 }),
  })
  .map(({ decoy, weak, weakTransform, showing }) => ({
    permissions: [...new Set([...decoy, ...showing])],
    rules: [
      { priority: 1, container: '/', transform: 'reveal' as const, permissions: decoy },
      { priority: 2, container: weak, transform: weakTransform, permissions: showing },
      { priority: 3, container: '/', transform: 'reveal' as const, permissions: showing },
    ],
  }));

/**
 * A reactor caller: token:use (and token:create, for the result) on `/` under mask, and a token:read rule that masks,
 * redacts or is absent, somewhere: the callers "What flows back" is for, whose reactor args use data they do not see.
 */
const userApp: fc.Arbitrary<AppSpec> = fc
  .record({
    read: fc.constantFrom<Transform | 'none'>('mask', 'mask', 'redact', 'none'),
    readContainer: fc.constantFrom('/', '/pii/', '/pci/', '/general/'),
    others: fc.subarray<TokenPermission>(['token:create', 'token:delete'], { minLength: 0 }),
  })
  .map(({ read, readContainer, others }) => {
    const use: RuleSpec = { priority: 2, container: '/', transform: 'mask', permissions: ['token:use', ...others] };
    const rules: RuleSpec[] = read === 'none' ? [use] : [{ priority: 1, container: readContainer, transform: read, permissions: ['token:read'] }, use];
    return { permissions: [...new Set(rules.flatMap((r) => r.permissions))], rules };
  });

export const appArb: fc.Arbitrary<AppSpec> = fc.oneof(
  { weight: 4, arbitrary: ruledApp },
  { weight: 1, arbitrary: rulelessApp },
  { weight: 2, arbitrary: broadApp },
  { weight: 3, arbitrary: splitApp },
  { weight: 2, arbitrary: decoyApp },
  { weight: 2, arbitrary: userApp },
);

export const appsArb = fc.array(appArb, { minLength: 2, maxLength: 4 });

// ---- data ----

/**
 * 10+ letters and digits of the secret alphabet (windows.ts): no window of it spells a word or field name of the API,
 * and long enough that no other response text contains it by chance.
 */
export const secretString = fc.string({ unit: fc.constantFrom(...SECRET_ALPHABET.split('')), minLength: 10, maxLength: 14 });
const digits = (min: number, max = min) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: min, maxLength: max });

export const jsonData: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        k: secretString,
        j: fc.oneof(
          secretString,
          fc.integer({ min: 0, max: 999 }),
          fc.boolean(),
          fc.record({ inner: secretString, n: fc.integer({ min: 0, max: 99 }) }),
          fc.array(secretString, { minLength: 1, maxLength: 2 }),
        ),
        ssn: digits(9).map((d) => `${d.slice(0, 3)}-${d.slice(3, 5)}-${d.slice(5)}`),
      },
      { requiredKeys: ['k'] },
    ),
  },
  { weight: 1, arbitrary: secretString },
  { weight: 1, arbitrary: fc.array(secretString, { minLength: 1, maxLength: 3 }) },
);

/** One value per type; the command picks the one that fits the token's type when it runs. */
export interface DataSeed {
  ssn: string;
  ein: string;
  cardBody: string;
  dashed: boolean;
  json: unknown;
}

export const dataSeed: fc.Arbitrary<DataSeed> = fc.record({
  ssn: digits(9),
  ein: digits(9),
  cardBody: digits(12, 18),
  dashed: fc.boolean(),
  json: jsonData,
});

export const luhnComplete = (body: string): string => {
  for (let d = 0; d <= 9; d++) if (isLuhnValid(body + d)) return body + d;
  throw new Error('unreachable');
};

export const formatSsn = (d: string, dashed: boolean) => (dashed ? `${d.slice(0, 3)}-${d.slice(3, 5)}-${d.slice(5)}` : d);
export const formatEin = (d: string, dashed: boolean) => (dashed ? `${d.slice(0, 2)}-${d.slice(2)}` : d);

/**
 * The data of a seed for a type, made unique within the run by `salt` (a per-run counter): the last four characters of
 * every string leaf, and of the digits, are derived from it. Shrinking drives every generated string towards the same
 * value; without the salt two tokens would share their secrets, and knowing one would hide a leak of the other.
 */
const SALTS = SECRET_ALPHABET.length ** 4;
const saltNumber = (salt: number) => (salt * 7919 + 1237) % SALTS;
const saltLetters = (n: number) => [0, 1, 2, 3].map((i) => SECRET_ALPHABET[Math.floor(n / SECRET_ALPHABET.length ** i) % SECRET_ALPHABET.length]).join('');

/** A generated secret string made unique within the run (see dataFor). */
export const salted = (text: string, salt: number): string => text.slice(0, -4) + saltLetters(saltNumber(salt));

export const dataFor = (type: TokenType, seed: DataSeed, salt: number): unknown => {
  const n = saltNumber(salt);
  const letters = saltLetters(n);
  const digits = String(n % 10_000).padStart(4, '0');
  const saltString = (text: string) => text.slice(0, -4) + letters;
  const saltDigits = (text: string) => text.slice(0, -4) + digits;
  switch (type) {
    case 'token': {
      // A JSON round trip first: fast-check may build objects without a prototype; the API only ever sees parsed JSON.
      const walk = (value: unknown): unknown =>
        typeof value === 'string'
          ? saltString(value)
          : Array.isArray(value)
            ? value.map(walk)
            : value && typeof value === 'object'
              ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'ssn' && typeof v === 'string' ? saltDigits(v) : walk(v)]))
              : value;
      return walk(JSON.parse(JSON.stringify(seed.json)));
    }
    case 'card_number':
      return luhnComplete(saltDigits(seed.cardBody));
    case 'social_security_number':
      return formatSsn(saltDigits(seed.ssn), seed.dashed);
    case 'employer_id_number':
      return formatEin(saltDigits(seed.ein), seed.dashed);
  }
};

// ---- expressions, picked per type at run time ----

const DIGIT_MASKS = [
  '{{ data | reveal_last: 4 }}',
  '{{ data | reveal: 1, 2 }}',
  '{{ data | slice: 0, 3 }}',
  '{{ data | last4 }}',
  '{{ data }}',
  '{{ data | date: 1 }}',
];
export const MASKS: Record<TokenType, string[]> = {
  token: ['{{ data.k }}', '{{ data | reveal_last: 4 }}', '{{ data | stringify | slice: 0, 5 }}', '{{ data }}', '{{ data | date: 1 }}'],
  card_number: DIGIT_MASKS,
  social_security_number: DIGIT_MASKS,
  employer_id_number: DIGIT_MASKS,
};

const DIGIT_INDEXES = ['{{ data }}', '{{ data | slice: 0, 3 }}', '{{ data | last4 }}', "{{ data | remove: '-' }}"];
export const SEARCH_INDEXES: Record<TokenType, string[]> = {
  token: ['{{ data.k }}', '{{ data | stringify }}', '{{ data.j }}', '{{ data.ssn }}', '{{ data | slice: 0, 3 }}'],
  // Not allowed for card numbers: the API answers 400.
  card_number: ['{{ data | last4 }}'],
  social_security_number: DIGIT_INDEXES,
  employer_id_number: DIGIT_INDEXES,
};

const DIGIT_FINGERPRINTS = ['{{ data }}', '{{ data | slice: 0, 3 }}', '{{ data | reveal_last: 4 }}', "{{ data | remove: '-' }}"];
export const FINGERPRINTS: Record<TokenType, string[]> = {
  token: ['{{ data.k }}', '{{ data }}', '{{ data | stringify }}', '{{ data | slice: 0, 3 }}', '{{ data | reveal_last: 4 }}'],
  card_number: DIGIT_FINGERPRINTS,
  social_security_number: DIGIT_FINGERPRINTS,
  employer_id_number: DIGIT_FINGERPRINTS,
};

export const pick = <T>(pool: readonly T[], n: number): T => pool[n % pool.length];
