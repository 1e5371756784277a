// fast-check generators of the token commands' choices (POST /tokens, PATCH, search): what each command asks for,
// resolved against the run's tokens and applications when it runs (so shrinking keeps them meaningful).
import fc from 'fast-check';
import { DataSeed, dataSeed, secretString } from './arbitraries';
import { TOKEN_CONTAINERS, TokenType } from './model';

export const tokenContainers = fc.uniqueArray(fc.constantFrom(...TOKEN_CONTAINERS), { minLength: 1, maxLength: 2 });
/** Metadata values share no character with the secret alphabet, so they never hold a window of data. */
export const metadataValue = fc.string({ unit: fc.constantFrom(...'AEILNORSTU'.split('')), minLength: 1, maxLength: 8 });

export type DeriveMode = 'same' | 'fingerprint' | 'prefix';
/** Which existing token to derive from: one the caller's token:create rules cover, one they do not, or any. */
export type Steer = 'covered' | 'hidden' | 'any';

export interface CreateChoice {
  app: number;
  type: TokenType;
  seed: DataSeed;
  containers?: string[];
  /** Containers picked at run time among those the caller's token:create rules cover (the n-th of them). */
  own?: number;
  metadata?: Record<string, string>;
  searchIndexes?: number[];
  fingerprint?: number;
  mask?: number;
  dedupe: boolean;
  /** Derive the data from an existing token (same data, its fingerprint input as data, or the same first 3 characters). */
  derive?: { ref: number; mode: DeriveMode; steer: Steer };
}

const deriveChoice = fc.record({
  ref: fc.nat({ max: 31 }),
  mode: fc.constantFrom<DeriveMode>('fingerprint', 'prefix', 'same'),
  steer: fc.constantFrom<Steer>('covered', 'hidden', 'any'),
});

/** Any create: random data, expressions, containers; sometimes derived or deduplicated. */
export const anyCreate: fc.Arbitrary<CreateChoice> = fc.record(
  {
    app: fc.nat({ max: 31 }),
    type: fc.constantFrom<TokenType>('token', 'card_number', 'social_security_number', 'employer_id_number'),
    seed: dataSeed,
    containers: tokenContainers,
    own: fc.nat({ max: 31 }),
    metadata: fc.record({ m1: metadataValue }),
    searchIndexes: fc.array(fc.nat({ max: 31 }), { minLength: 1, maxLength: 2 }),
    fingerprint: fc.nat({ max: 31 }),
    mask: fc.nat({ max: 31 }),
    dedupe: fc.boolean(),
    derive: deriveChoice,
  },
  { requiredKeys: ['app', 'type', 'seed', 'dedupe'] },
);

/**
 * A deduplication probe: data of an existing token (covered by the caller's token:create rules, or not), in containers
 * the caller may create in. Without it, the rules of deduplication are put to the test a few times a run at best.
 */
export const dedupeProbe: fc.Arbitrary<CreateChoice> = fc.record({
  app: fc.nat({ max: 31 }),
  type: fc.constant<TokenType>('token'),
  seed: dataSeed,
  own: fc.nat({ max: 31 }),
  dedupe: fc.constant(true),
  derive: fc.record({
    ref: fc.nat({ max: 31 }),
    mode: fc.constantFrom<DeriveMode>('same', 'fingerprint'),
    steer: fc.constantFrom<Steer>('covered', 'hidden'),
  }),
});

export const createChoice: fc.Arbitrary<CreateChoice> = fc.oneof({ weight: 3, arbitrary: anyCreate }, { weight: 2, arbitrary: dedupeProbe });

export interface PatchChoice {
  app: number;
  ref: number;
  /** Pick, at run time, an application holding token:update and a live token one of its token:update rules covers. */
  steer: boolean;
  data?: DataSeed;
  containers?: string[] | null;
  metadata?: Record<string, string | null>;
  searchIndexes?: number[] | null;
  fingerprint?: number | null;
  mask?: number | null;
  expiresAt?: boolean;
}

const target = { app: fc.nat({ max: 31 }), ref: fc.nat({ max: 31 }), steer: fc.nat({ max: 2 }).map((n) => n > 0) };
const nullableNat = fc.option(fc.nat({ max: 31 }), { freq: 5 });

/** Everything at once: data, moves, expressions, metadata, expiry. */
const mixedPatch = fc.record(
  {
    ...target,
    data: dataSeed,
    containers: fc.option(tokenContainers, { freq: 6 }),
    metadata: fc.record({ m1: fc.option(metadataValue) }),
    searchIndexes: fc.option(fc.array(fc.nat({ max: 31 }), { minLength: 1, maxLength: 2 }), { freq: 5 }),
    fingerprint: nullableNat,
    mask: nullableNat,
    expiresAt: fc.boolean(),
  },
  { requiredKeys: ['app', 'ref', 'steer'] },
);
/** A container move without data (null: back to the type's default container). */
const movePatch = fc.record({ ...target, containers: fc.option(tokenContainers, { freq: 6 }) });
/** One expression re-derived from the stored data, without data. */
const derivingPatch = fc.oneof(
  fc.record({ ...target, mask: nullableNat }),
  fc.record({ ...target, searchIndexes: fc.option(fc.array(fc.nat({ max: 31 }), { minLength: 1, maxLength: 2 }), { freq: 5 }) }),
  fc.record({ ...target, fingerprint: nullableNat }),
);
/** New data, sometimes with a move or a new mask. */
const dataPatch = fc.record(
  { ...target, data: dataSeed, containers: tokenContainers, mask: nullableNat },
  { requiredKeys: ['app', 'ref', 'steer', 'data'] },
);
const metadataPatch = fc.record(
  { ...target, metadata: fc.record({ m1: fc.option(metadataValue) }), expiresAt: fc.boolean() },
  { requiredKeys: ['app', 'ref', 'steer', 'metadata'] },
);

export const patchChoice: fc.Arbitrary<PatchChoice> = fc.oneof(
  { weight: 2, arbitrary: mixedPatch },
  { weight: 4, arbitrary: movePatch },
  { weight: 3, arbitrary: derivingPatch },
  { weight: 2, arbitrary: dataPatch },
  { weight: 1, arbitrary: metadataPatch },
);

export type GuessKind = 'plaintext' | 'alnum' | 'last4' | 'first3' | 'leaf' | 'random';
export type QueryChoice =
  | { kind: 'guess'; ref: number; guess: GuessKind; random: string }
  | { kind: 'id'; ref: number }
  | { kind: 'first3AndId'; ref: number }
  | { kind: 'container' }
  | { kind: 'empty'; form: 'absent' | 'null' | 'blank' };

export const queryChoice: fc.Arbitrary<QueryChoice> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('guess' as const),
      ref: fc.nat({ max: 31 }),
      guess: fc.constantFrom<GuessKind>('plaintext', 'alnum', 'last4', 'first3', 'leaf', 'random'),
      random: secretString,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('id' as const), ref: fc.nat({ max: 31 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('first3AndId' as const), ref: fc.nat({ max: 31 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('container' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('empty' as const), form: fc.constantFrom('absent' as const, 'null' as const, 'blank' as const) }) },
);
