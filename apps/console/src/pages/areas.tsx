// The console's areas, in the navigation's order, and which page of an area a path shows.
import type { ComponentChildren } from 'preact';
import { TokensArea } from './tokens/tokens-area';
import { ApplicationsArea } from './applications/applications-area';
import { FormulasArea } from './formulas/formulas-area';
import { ReactorsArea } from './reactors/reactors-area';
import { ProxiesArea } from './proxies/proxies-area';
import { WebhooksArea } from './webhooks/webhooks-area';
import { AuditArea } from './audit/audit-area';
import { TenantArea } from './tenant/tenant-area';

export interface Area {
  path: string;
  label: string;
  render: (rest: string, params: URLSearchParams) => ComponentChildren;
}

export const AREAS: Area[] = [
  { path: '/tokens', label: 'Tokens', render: (rest, params) => <TokensArea rest={rest} params={params} /> },
  { path: '/applications', label: 'Applications', render: (rest, params) => <ApplicationsArea rest={rest} params={params} /> },
  { path: '/reactor-formulas', label: 'Reactor formulas', render: (rest, params) => <FormulasArea rest={rest} params={params} /> },
  { path: '/reactors', label: 'Reactors', render: (rest, params) => <ReactorsArea rest={rest} params={params} /> },
  { path: '/proxies', label: 'Proxies', render: (rest, params) => <ProxiesArea rest={rest} params={params} /> },
  { path: '/webhooks', label: 'Webhooks', render: (rest, params) => <WebhooksArea rest={rest} params={params} /> },
  { path: '/audit-log', label: 'Audit log', render: (_rest, params) => <AuditArea params={params} /> },
  { path: '/tenant', label: 'Tenant', render: () => <TenantArea /> },
];

export function pageFor(area: Area, rest: string, params: URLSearchParams): ComponentChildren {
  return area.render(rest, params);
}
