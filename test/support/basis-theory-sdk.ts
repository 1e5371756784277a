// The hosted vault's JS SDK (@basis-theory/basis-theory-js, pinned) against the API in-process on a real port, set up
// as a user would: only the base URL changed, plus a shim renaming the SDK's BT-* headers to SVC-*. The SDK exposes each
// service's axios instance as `client` (public in its declarations, though the service interfaces leave it out), so
// the shim is a request interceptor on those instances; no header-renaming forwarder is needed.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasisTheory } from '@basis-theory/basis-theory-js';
import type { BasisTheoryService } from '@basis-theory/basis-theory-js/service';
import type { BasisTheory as BasisTheoryClient } from '@basis-theory/basis-theory-js/types/sdk';
import { startTestApp, type TestApp } from './test-app';

export type { BasisTheoryClient };

/**
 * The shim: every header the SDK names BT-… goes out as SVC-… (BT-API-KEY, BT-PROXY-KEY, BT-PROXY-URL, …), on the
 * services that have an http client of their own (`bt.tokenize` is a method, not one of them).
 */
export const renameBtHeaders = (bt: BasisTheoryClient): BasisTheoryClient => {
  const services = [
    bt.tokens,
    bt.applications,
    bt.reactors,
    bt.reactorFormulas,
    bt.proxies,
    bt.proxy,
    bt.logs,
    bt.permissions,
    bt.tenants,
  ];
  for (const service of services) {
    (service as unknown as BasisTheoryService).client.interceptors.request.use((config) => {
      for (const [name, value] of Object.entries(config.headers.toJSON())) {
        if (!/^bt-/i.test(name)) continue;
        config.headers.delete(name);
        config.headers.set(`SVC-${name.slice(3)}`, value as string);
      }
      return config;
    });
  }
  return bt;
};

/** A request as the API's server received it: the request line and headers (bodies are the app's to read). */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface SdkTestApp {
  test: TestApp;
  /** What the SDK is given as `apiBaseUrl`. */
  baseUrl: string;
  /** Every request that reached the API, in order. */
  wire: WireRequest[];
  /** An initialised SDK with the shim; `undefined` sends no API key. */
  sdk(apiKey: string | undefined): Promise<BasisTheoryClient>;
  close(): Promise<void>;
}

/** startTestApp, listening on a free port of 127.0.0.1. */
export async function startSdkTestApp(env: Record<string, string> = {}): Promise<SdkTestApp> {
  const test = await startTestApp(env);
  await test.app.listen(0, '127.0.0.1');
  const server = test.app.getHttpServer() as Server;
  const wire: WireRequest[] = [];
  server.prependListener('request', (req) => wire.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } }));
  // The SDK keeps http only for the host named localhost: any other host is switched to https.
  const baseUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    test,
    baseUrl,
    wire,
    sdk: async (apiKey) => renameBtHeaders(await new BasisTheory().init(apiKey, { apiBaseUrl: baseUrl })),
    close: () => test.close(),
  };
}
