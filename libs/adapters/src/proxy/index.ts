export {
  HttpProxyEgress,
  DEFAULT_PROXY_MAX_RESPONSE_BYTES,
  DEFAULT_PROXY_TIMEOUT_MS,
  type HttpProxyEgressOptions,
} from './http-proxy-egress';
