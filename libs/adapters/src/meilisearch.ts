// The Meilisearch adapters, a subpath of their own (@vault/adapters/meilisearch): loaded only when VAULT_SEARCH names a server.
export * from './read-model/meilisearch/meili-collection';
export * from './read-model/meilisearch/meili-read-model';
export * from './read-model/meilisearch/meili-commit-plan';
export * from './read-model/meilisearch/meili-generation';
export * from './read-model/meilisearch/meili-version';
export * from './read-model/meilisearch/meili-directory';
export * from './read-model/meilisearch/meili-formulas';
export * from './read-model/meilisearch/meili-tokens';
export * from './read-model/meilisearch/meili-reactors';
export * from './read-model/meilisearch/meili-proxies';
export * from './read-model/meilisearch/meili-audit';
export * from './read-model/meilisearch/meili-usage';
export * from './read-model/meilisearch/meili-webhooks';
