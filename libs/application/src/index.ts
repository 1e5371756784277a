// @vault/application: the use cases (a command or query and its handler, one a file, by feature), the ports they need,
// the command runner and the projections. Shared steps stay inside their feature; only what libs/nest wires and the
// apps dispatch is exported here.

// Ports
export * from './ports/access-log';
export * from './ports/event-store';
export * from './ports/formula-code-checker';
export * from './ports/key-store';
export * from './ports/projection-store';
export * from './ports/projector-lease';
export * from './ports/reactor-runtime';
export * from './ports/read-models';
export * from './ports/system';
export * from './ports/token-crypto';
export * from './ports/token-search-index';
export * from './ports/usage-report-read-model';

// Writes: the command runner, and what a write waits for before it answers
export * from './commands/command-runner';
export { GroupCommitAppender } from './commands/group-commit-appender';
export type { KeyShredding } from './commands/await-shredding';
export * from './ports/request-context';

// Read models
export * from './projections/projection';
export * from './projections/apply-batch';
export * from './projections/projector';
export * from './projections/leased-projector';
export * from './projections/polling-waiter';
export * from './projections/rebuild';
export * from './projections/projection-lag';
export * from './projections/tenants.projection';
export * from './projections/applications.projection';
export * from './projections/formulas.projection';
export * from './projections/reactors.projection';
export * from './projections/proxies.projection';
export * from './projections/webhooks.projection';
export * from './projections/deliveries.projection';
export * from './projections/tokens.projection';
export * from './projections/audit.projection';
export * from './projections/key-shredding.projection';
export * from './projections/usage.projection';

// Who calls
export * from './shared/use-case';
export * from './authentication/principal';
export * from './authentication/authenticator';

// Tenants
export type { CreatedTenant } from './tenants/tenant-creation';
export * from './tenants/tenant-view';
export * from './tenants/create-tenant';
export * from './tenants/bootstrap-tenant';
export * from './tenants/get-own-tenant';
export * from './tenants/rename-own-tenant';
export * from './tenants/delete-tenant';

// Applications
export * from './applications/application-view';
export * from './applications/create-application';
export * from './applications/update-application';
export * from './applications/regenerate-application-key';
export * from './applications/delete-application';
export * from './applications/get-application';
export * from './applications/list-applications';

// Tokens
export * from './tokens/token-view';
export * from './tokens/create-token';
export * from './tokens/update-token';
export * from './tokens/delete-token';
export * from './tokens/expire-token';
export * from './tokens/get-token';
export * from './tokens/search-tokens';
export * from './tokens/sealing/sealed-token-index';
export * from './tokenize/tokenize-requests';
export * from './tokenize/tokenize';
export * from './detokenize/detokenizer';
export * from './detokenize/detokenize';

// Reactor formulas
export * from './reactor-formulas/formula-view';
export * from './reactor-formulas/formula-reactors';
export * from './reactor-formulas/create-reactor-formula';
export * from './reactor-formulas/update-reactor-formula';
export * from './reactor-formulas/delete-reactor-formula';
export * from './reactor-formulas/import-official-formula';
export * from './reactor-formulas/get-reactor-formula';
export * from './reactor-formulas/list-reactor-formulas';
export * from './reactor-formulas/sealing/sealed-formula-content';

// Reactors
export * from './reactors/reactor-view';
export * from './reactors/create-reactor';
export * from './reactors/update-reactor';
export * from './reactors/patch-reactor';
export * from './reactors/delete-reactor';
export * from './reactors/get-reactor';
export * from './reactors/list-reactors';
export * from './reactors/react';
export { reactorKeyId } from './reactors/sealing/reactor-configuration';
export { toProxyView, type ProxyView } from './proxies/proxy-view';
export * from './proxies/create-proxy';
export * from './proxies/update-proxy';
export * from './proxies/patch-proxy';
export * from './proxies/delete-proxy';
export * from './proxies/get-proxy';
export * from './proxies/list-proxies';
export { proxyKeyId } from './proxies/sealing/proxy-secrets';
export * from './proxies/invoke/invoke-proxy';
export { ProxyTargets, NO_USABLE_PROXY } from './proxies/invoke/proxy-target';
export { TRANSFORM_FAILED } from './proxies/invoke/proxy-transformer';
export * from './ports/webhooks';
export { toWebhookView, type WebhookView } from './webhooks/webhook-view';
export * from './webhooks/create-webhook';
export * from './webhooks/update-webhook';
export * from './webhooks/delete-webhook';
export * from './webhooks/get-webhook';
export * from './webhooks/list-webhooks';
export * from './webhooks/list-deliveries';
export { webhookKeyId } from './webhooks/sealing/webhook-secret';
export * from './webhooks/delivery/webhook-runner';
export * from './webhooks/delivery/webhook-dispatcher';
export * from './ports/proxy-egress';

// Audit
export * from './audit/group-commit-access-log';
export * from './audit/disabled-access-log';
export * from './audit/record-access';
export * from './audit/list-audit-log';

// Reports
export * from './reports/get-usage-report';
