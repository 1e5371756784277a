// Clock, ids and API keys come through ports so that every decision can be tested with fixed inputs.
import type { ApplicationType } from '@vault/domain';

export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  newId(): string;
}

export interface ApiKeys {
  /** A new random key (≥ 32 bytes of entropy), prefixed by the application type. */
  generate(type: ApplicationType): string;
  /** The only form in which a key is ever stored. */
  hash(key: string): string;
  /** A new proxy key (≥ 128 random bits): it routes invocations, and authenticates them when a proxy needs no API key. */
  generateProxyKey(): string;
}
