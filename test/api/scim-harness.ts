import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../services/api-keys/issue';
import { startLocalGateway, type LocalGateway } from '../../services/local/gateway';
import { putOrganization } from '../../services/organization/public';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * The SCIM API of two organizations through the local gateway (real authorizer, real
 * handlers, a fresh table on the run's DynamoDB Local), with keys issued the operator's way.
 */
export interface ScimResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export interface RequestOptions {
  readonly token?: string | null;
  readonly body?: unknown;
  /** Sent as is (for malformed JSON). */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
}

export interface ScimHarness {
  readonly db: Db;
  readonly gateway: LocalGateway;
  readonly orgA: string;
  readonly orgB: string;
  readonly keys: { readonly scim: string; readonly readOnly: string; readonly noScim: string; readonly orgB: string };
  /** `path` relative to the SCIM base of `org` (default orgA), e.g. `/Users?count=1`. */
  request(method: string, path: string, options?: RequestOptions, org?: string): Promise<ScimResponse>;
  close(): Promise<void>;
}

export async function startScimHarness(): Promise<ScimHarness> {
  const db = await createTestTable();
  const now = new Date().toISOString();
  const orgA = randomUUID();
  const orgB = randomUUID();
  for (const [id, name] of [
    [orgA, 'Org A'],
    [orgB, 'Org B'],
  ]) {
    await putOrganization(db, { id, name, entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
  }
  const issue = async (organizationId: string, label: string, scopes: string[]) =>
    (await issueApiKey(db, { organizationId, environment: 'TEST', label, scopes, now })).token;
  const keys = {
    scim: await issue(orgA, 'Entra provisioning', ['scim:read', 'scim:write']),
    readOnly: await issue(orgA, 'SCIM reader', ['scim:read']),
    noScim: await issue(orgA, 'Timesheets only', ['timesheets:read']),
    orgB: await issue(orgB, 'Org B provisioning', ['scim:read', 'scim:write']),
  };
  const gateway = await startLocalGateway({ port: 0, host: '127.0.0.1', authorizerCacheSeconds: 0 });

  async function request(method: string, path: string, options: RequestOptions = {}, org = orgA): Promise<ScimResponse> {
    const token = options.token === undefined ? keys.scim : options.token;
    const hasBody = options.body !== undefined || options.rawBody !== undefined;
    const res = await fetch(`${gateway.url}/v1/organizations/${org}/scim/v2${path}`, {
      method,
      headers: {
        ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
        ...(hasBody ? { 'Content-Type': 'application/scim+json' } : {}),
        ...options.headers,
      },
      ...(hasBody ? { body: options.rawBody ?? JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  return { db, gateway, orgA, orgB, keys, request, close: () => gateway.close() };
}

/** A user body as Entra ID sends it on create (idp-request-shapes.md). */
export function entraUser(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const n = randomUUID().slice(0, 8);
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
    externalId: `ext-${n}`,
    userName: `Test_User_${n}@contoso.example`,
    active: true,
    emails: [{ primary: true, type: 'work', value: `user.${n}@contoso.example` }],
    meta: { resourceType: 'User' },
    name: { formatted: 'Given Family', familyName: 'Family', givenName: 'Given' },
    roles: [],
    ...overrides,
  };
}

/** A user body as Okta sends it on create (idp-request-shapes.md). */
export function oktaUser(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const n = randomUUID().slice(0, 8);
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: `test.user.${n}@okta.example`,
    name: { givenName: 'Test', familyName: 'User' },
    emails: [{ primary: true, value: `test.user.${n}@okta.example`, type: 'work' }],
    displayName: 'Test User',
    locale: 'en-US',
    externalId: `00u${n}`,
    groups: [],
    password: '1mz050nq',
    active: true,
    ...overrides,
  };
}
