// The expression language (Liquid) is a port like the others, but the domain's own validation evaluates with it, so its
// interface is the domain's; listed here so that every port of the service is found in this folder.
export type { ExpressionEngine } from '@vault/domain';
