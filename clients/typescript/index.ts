import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi';

/**
 * The typed client of the Organization API: openapi-fetch over the types that
 * openapi-typescript generates from docs/openapi.json (`npm run openapi` keeps both current).
 * Paths, parameters, request bodies and responses are checked by the compiler, so a change
 * of the contract breaks the build of every caller that no longer fits it.
 */
export type { components, operations, paths } from './openapi';

export interface WfmClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The API's origin, e.g. `https://api.test.wfm.example` or `http://127.0.0.1:3000` (paths start with /v1). */
  readonly baseUrl: string;
  /** `wfm_test_<key-id>.<secret>` or `wfm_live_<key-id>.<secret>`; sent as `Authorization: Bearer`. */
  readonly apiKey: string;
}

export type WfmClient = Client<paths>;

export function createClient(options: WfmClientOptions): WfmClient {
  const { apiKey, baseUrl, headers, ...rest } = options;
  return createFetchClient<paths>({ ...rest, baseUrl: baseUrl.replace(/\/$/, ''), headers: { ...headers, Authorization: `Bearer ${apiKey}` } });
}
