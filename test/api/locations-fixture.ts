import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../services/api-keys/issue';
import type { Principal } from '../../services/shared/auth/principal';
import { call, itemsOfType, type ApiFixture, type ApiResponse, type CallOptions } from '../support/api';

/**
 * Helpers of the locations-, contacts-, qr-, materials- and stock- API tests (not a test file
 * itself): keys with exactly the scopes a case needs, writes with a fresh Idempotency-Key,
 * and the stored items of one entity.
 */

/** A TEST key of the demo organization (or another) with exactly these scopes. */
export async function keyWith(api: ApiFixture, scopes: readonly string[], organizationId = api.demo.organizationId): Promise<string> {
  const label = `test key: ${scopes.join(' ')}`;
  return (await issueApiKey(api.db, { organizationId, environment: 'TEST', label, scopes, now: new Date().toISOString() })).token;
}

type WriteOptions = Omit<CallOptions, 'body'>;

/** A write as the admin key sends it, with a fresh Idempotency-Key unless the options name one. */
export const send = (api: ApiFixture, method: string, path: string, body?: unknown, options: WriteOptions = {}): Promise<ApiResponse> =>
  call(method, `${api.orgUrl()}${path}`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ...options, ...(body !== undefined ? { body } : {}) });

export const read = (api: ApiFixture, path: string, token = api.demo.keys.admin): Promise<ApiResponse> => call('GET', `${api.orgUrl()}${path}`, { token });

/** Sends a write and fails the test unless it answers `status`. */
export async function sent(api: ApiFixture, method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200, options: WriteOptions = {}): Promise<ApiResponse> {
  const res = await send(api, method, path, body, options);
  if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

export const createLocation = async (api: ApiFixture, body: Record<string, unknown>, options: WriteOptions = {}) => (await sent(api, 'POST', '/locations', body, 201, options)).body;
export const createContact = async (api: ApiFixture, body: Record<string, unknown>, options: WriteOptions = {}) => (await sent(api, 'POST', '/contacts', body, 201, options)).body;
export const createMaterial = async (api: ApiFixture, body: Record<string, unknown>, options: WriteOptions = {}) => (await sent(api, 'POST', '/materials', body, 201, options)).body;

/** An actor of the demo organization with exactly these scopes, for running a use case directly, as the area handler does. */
export const demoActor = (api: ApiFixture, scopes: readonly string[]) => {
  const principal: Principal = { organizationId: api.demo.organizationId, keyId: 'race', keyLabel: 'Race test', environment: 'TEST', scopes: new Set(scopes) };
  return { principal, requestId: `req-${randomUUID()}` };
};

/**
 * A location archived through the API right after the first `getLocation` of a use case
 * answered: the use case decides on the active location and commits after the archive.
 * `wrap` gives each attempt's store that race; `reads` counts the reads of every attempt.
 */
export function archivedAfterFirstRead(api: ApiFixture, locationId: string) {
  let reads = 0;
  return {
    reads: () => reads,
    wrap: <S extends { getLocation(organizationId: string, id: string): Promise<unknown> }>(store: S): S => ({
      ...store,
      getLocation: (async (organizationId: string, id: string) => {
        const read = await store.getLocation(organizationId, id);
        reads += 1;
        if (reads === 1) await sent(api, 'DELETE', `/locations/${locationId}`);
        return read;
      }) as S['getLocation'],
    }),
  };
}

/** Stored audit items of one entity, oldest first. */
export async function auditOf(api: ApiFixture, entityId: string): Promise<Record<string, any>[]> {
  return (await itemsOfType(api.db, 'AuditEntry')).filter((i) => i.entity?.id === entityId).sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : a.occurredAt > b.occurredAt ? 1 : 0));
}

export const ids = (res: ApiResponse): string[] => res.body.items.map((i: { id: string }) => i.id);
