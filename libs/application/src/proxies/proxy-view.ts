// A proxy as the API shows it: its secrets opened for proxy:read holders, both forms of transforms.
import type { ProxyConfiguration, ProxyRecord, ProxySecrets, ProxyState, ProxyTransform } from '@vault/domain';
import type { Caller } from '../shared/use-case';

export interface ProxyView {
  id: string;
  tenant_id: string;
  name: string;
  /** Absent from a write's answer to a caller without proxy:read, as every secret below. */
  key?: string;
  destination_url?: string;
  request_transforms?: ProxyTransform[];
  response_transforms?: ProxyTransform[];
  /** The older single form: the first `code` transform of its direction, else null. */
  request_transform?: { code: string } | null;
  response_transform?: { code: string } | null;
  application?: { id: string };
  /** The same id, as the hosted vaults' SDKs read it (`applicationId`). */
  application_id?: string;
  configuration?: ProxyConfiguration;
  require_auth: boolean;
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
}

const singleForm = (transforms: ProxyTransform[]): { code: string } | null => {
  const code = transforms.find((transform) => transform.type === 'code');
  return code && code.type === 'code' ? { code: code.code } : null;
};

export function toProxyView(proxy: ProxyRecord, secrets: ProxySecrets): ProxyView {
  return {
    id: proxy.id,
    tenant_id: proxy.tenant_id,
    name: proxy.name,
    key: secrets.key,
    destination_url: secrets.destination_url,
    request_transforms: secrets.request_transforms,
    response_transforms: secrets.response_transforms,
    request_transform: singleForm(secrets.request_transforms),
    response_transform: singleForm(secrets.response_transforms),
    ...(proxy.application_id === null ? {} : { application: { id: proxy.application_id }, application_id: proxy.application_id }),
    configuration: secrets.configuration,
    require_auth: proxy.require_auth,
    created_by: proxy.created_by,
    created_at: proxy.created_at,
    ...(proxy.modified_by === null ? {} : { modified_by: proxy.modified_by }),
    ...(proxy.modified_at === null ? {} : { modified_at: proxy.modified_at }),
  };
}

/**
 * A write's answer: the key, the destination, the configuration and the transforms are shown only to proxy:read holders.
 * A caller holding proxy:create or proxy:update alone gets the proxy's id, name, application and require_auth.
 */
export const shownTo = (caller: Caller, view: ProxyView): ProxyView => {
  if (caller.principal.permissions.has('proxy:read')) return view;
  const {
    key: _key,
    destination_url: _destination,
    configuration: _configuration,
    request_transforms: _requests,
    response_transforms: _responses,
    request_transform: _request,
    response_transform: _response,
    ...rest
  } = view;
  return rest;
};

/** The proxy a successful create or update leaves. */
export function activeProxy(state: ProxyState): ProxyRecord {
  if (state.status !== 'active') throw new Error('The proxy is not active after the command.');
  return state.proxy;
}
