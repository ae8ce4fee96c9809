import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../services/api-keys/issue';
import { call, type ApiFixture, type ApiResponse, type CallOptions } from '../support/api';

/** Helpers of the employees and bank-account API tests. */

export const employeesUrl = (api: ApiFixture, organizationId?: string) => `${api.orgUrl(organizationId)}/employees`;
export const employeeUrl = (api: ApiFixture, id: string, organizationId?: string) => `${employeesUrl(api, organizationId)}/${id}`;
export const bankUrl = (api: ApiFixture, id: string, organizationId?: string) => `${employeeUrl(api, id, organizationId)}/bank-account`;
export const etagOf = (res: ApiResponse) => res.headers.get('etag')!;

/** A key of the demo organization with exactly these scopes. */
export async function keyWith(api: ApiFixture, scopes: readonly string[], organizationId = api.demo.organizationId): Promise<string> {
  const label = `test key: ${scopes.join(' ')}`;
  return (await issueApiKey(api.db, { organizationId, environment: 'TEST', label, scopes, now: new Date().toISOString() })).token;
}

/** A create body with unique userName and externalId; `over` replaces members. */
export function employeeBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const tag = randomUUID().slice(0, 8);
  return {
    userName: `Mira.Hoffmann.${tag}@acme.example`,
    externalId: `HR-${tag}`,
    displayName: `Mira Hoffmann ${tag}`,
    givenName: 'Mira',
    familyName: `Hoffmann${tag}`,
    emails: [{ value: `mira.${tag}@acme.example`, type: 'work', primary: true }],
    department: 'Facility',
    ...over,
  };
}

export const createEmployee = (api: ApiFixture, body: unknown, options: CallOptions = {}) =>
  call('POST', employeesUrl(api), { token: api.demo.keys.admin, idempotencyKey: randomUUID(), body, ...options });

export async function createdEmployee(api: ApiFixture, body: unknown = employeeBody(), options: CallOptions = {}): Promise<ApiResponse> {
  const res = await createEmployee(api, body, options);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
  return res;
}

export const patchEmployee = (api: ApiFixture, id: string, ifMatch: string | undefined, body: unknown, options: CallOptions = {}) =>
  call('PATCH', employeeUrl(api, id), { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch, body, ...options });

export const deactivate = (api: ApiFixture, id: string, ifMatch: string | undefined, body: unknown = { reason: 'Contract ended' }, options: CallOptions = {}) =>
  call('POST', `${employeeUrl(api, id)}/deactivate`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch, body, ...options });

export const getEmployee = (api: ApiFixture, id: string, token = api.demo.keys.admin) => call('GET', employeeUrl(api, id), { token });

export const getBank = (api: ApiFixture, id: string, token = api.demo.keys.admin) => call('GET', bankUrl(api, id), { token });

export const putBank = (api: ApiFixture, id: string, ifMatch: string | undefined, body: unknown, options: CallOptions = {}) =>
  call('PUT', bankUrl(api, id), { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ifMatch, body, ...options });
