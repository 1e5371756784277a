// The data a proxy is made of. What a caller of the proxy's destination must not learn, and what a stolen read model
// must not give away (the key, the destination, the configuration, the transforms and their code), is sealed together
// under the proxy's own data key, wrapped by its tenant's key; the rest is plaintext for lists and invocation lookup.
import type { EncryptedData } from '../tokens/sealed-data';
import type { TokenType } from '../tokens/token-types';

/** Runs in the reactor sandbox with `{ args: { body, headers, method, path, query }, configuration }`. */
export interface CodeTransform {
  type: 'code';
  code: string;
}

/** What a tokenize transform creates for one field: a token of this type, in these containers, with this metadata. */
export interface TokenizeFieldToken {
  type: TokenType;
  containers?: string[];
  metadata?: Record<string, string>;
  /** As in POST /tokenize: answer an existing token with the same fingerprint the application may create in. */
  deduplicate_token?: boolean;
}

export interface TokenizeField {
  json_path: string;
  token: TokenizeFieldToken;
}

/** Each field of a JSON body is replaced by the id of a token made from it, as the proxy's application. */
export interface TokenizeTransform {
  type: 'tokenize';
  fields: TokenizeField[];
}

/** Each field's string is masked as `reveal_last: 4` would. */
export interface MaskTransform {
  type: 'mask';
  fields: string[];
}

export type ProxyTransform = CodeTransform | TokenizeTransform | MaskTransform;

export const PROXY_TRANSFORM_TYPES = ['code', 'tokenize', 'mask'] as const;

/** Setting name → value. Values are secrets (upstream keys): this object lives only in memory and sealed. */
export type ProxyConfiguration = Record<string, string>;

/** What is sealed: everything of a proxy but its name, its application and whether it needs authentication. */
export interface ProxySecrets {
  /** The proxy's key (it routes invocations, and is their credential when `require_auth` is false). */
  key: string;
  destination_url: string;
  configuration: ProxyConfiguration;
  request_transforms: ProxyTransform[];
  response_transforms: ProxyTransform[];
}

/** A proxy's settings after validation, in plaintext: what a create or an update gives, before sealing. */
export interface ValidProxy {
  name: string;
  destination_url: string;
  require_auth: boolean;
  /** Lower-case; null: none. Required by a tokenize transform: the tokens are made as this application. */
  application_id: string | null;
  configuration: ProxyConfiguration;
  request_transforms: ProxyTransform[];
  response_transforms: ProxyTransform[];
}

/** What a create or update records, computed by the application layer before decide (the secrets sealed). */
export interface ProxyContent {
  name: string;
  require_auth: boolean;
  application_id: string | null;
  /** Hex SHA-256 of the key: the invocation's lookup, which gives nothing back to whoever reads it. */
  key_hash: string;
  /** ProxySecrets as JSON text, sealed under the proxy's own data key. */
  sealed: EncryptedData;
}

/** What the rules need of the proxy's application (an ApplicationState is one); null: none, or it does not exist. */
export interface ProxyApplicationSnapshot {
  id: string;
  tenant_id: string;
  type: string;
  deleted?: boolean;
}
