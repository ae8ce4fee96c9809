import type { z } from 'zod';
import { cursorKey } from '../crypto/secrets';
import { openCursor, sealCursor, type CursorBinding } from '../ddb/cursor';
import type { ApiRequest } from './request';
import { parseQuery } from './validation';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** The binding of a list's cursors: the organization and the query that made them. */
export function cursorBinding(request: ApiRequest, query: Record<string, unknown>): CursorBinding {
  const { cursor: _cursor, ...rest } = query;
  return { organizationId: request.principal.organizationId, query: { route: request.route.operation, ...rest } };
}

export async function readCursor<T>(binding: CursorBinding, cursor: string | undefined): Promise<T | undefined> {
  if (cursor === undefined) return undefined;
  return openCursor(await cursorKey(), binding, cursor) as T;
}

export async function nextCursor(binding: CursorBinding, position: unknown | undefined): Promise<string | null> {
  return position === undefined ? null : sealCursor(await cursorKey(), binding, position);
}

/**
 * The start of every list operation: the strict query, the binding of its cursors, and the
 * position the given cursor continues from (422 for a foreign or altered cursor).
 */
export async function listRequest<S extends z.ZodType<{ cursor?: string }>, P>(
  request: ApiRequest,
  schema: S,
): Promise<{ query: z.infer<S>; binding: CursorBinding; position: P | undefined }> {
  const query = parseQuery(schema, request.query);
  const binding = cursorBinding(request, query as Record<string, unknown>);
  return { query, binding, position: await readCursor<P>(binding, (query as { cursor?: string }).cursor) };
}

/**
 * The cursor of a list operation whose query the shared handler already parsed: the binding
 * of its cursors (organization, operation, every filter, and `extra` such as a path id) and
 * the position the given cursor continues from (422 for a foreign or altered cursor).
 */
export async function listPosition<P>(
  request: { readonly principal: { readonly organizationId: string }; readonly route: { readonly operation: string }; readonly query: object },
  extra: Record<string, unknown> = {},
): Promise<{ binding: CursorBinding; position: P | undefined }> {
  const { cursor, ...filters } = request.query as Record<string, unknown>;
  const binding: CursorBinding = { organizationId: request.principal.organizationId, query: { route: request.route.operation, ...filters, ...extra } };
  return { binding, position: await readCursor<P>(binding, cursor as string | undefined) };
}

/**
 * One list page of an operation: the cursor's position (422 for a foreign or altered one),
 * `read` of `{ limit, after }` (the query's limit or the default), the items rendered, and the
 * next cursor sealed with the same binding (`extra` adds e.g. a path id to it).
 */
export async function listPage<T, R>(
  request: { readonly principal: { readonly organizationId: string }; readonly route: { readonly operation: string }; readonly query: object },
  // `after` is the position the store's previous page returned, sealed in a verified cursor: it
  // takes the store's own position type (`never` fits any), as listPosition<P> would cast it.
  read: (page: { readonly limit: number; readonly after: never }) => Promise<{ readonly items: readonly T[]; readonly next?: unknown }>,
  render: (items: readonly T[]) => readonly R[] | Promise<readonly R[]>,
  extra: Record<string, unknown> = {},
): Promise<{ readonly items: readonly R[]; readonly nextCursor: string | null }> {
  const { binding, position } = await listPosition<never>(request, extra);
  const page = await read({ limit: (request.query as { readonly limit?: number }).limit ?? DEFAULT_LIMIT, after: position as never });
  return { items: await render(page.items), nextCursor: await nextCursor(binding, page.next) };
}

/**
 * One page of a short list held whole by its owner (a template's or an inspection's items, at
 * most 50): `limit` and the cursor work as on every list. The position is the last entry's key;
 * an entry removed since that page ends the walk rather than repeating entries.
 */
export function pageOf<T>(items: readonly T[], keyOf: (t: T) => string, limit: number, after: string | undefined): { readonly items: T[]; readonly next?: string } {
  const start = after === undefined ? 0 : items.findIndex((t) => keyOf(t) === after) + 1;
  if (after !== undefined && start === 0) return { items: [] };
  const page = items.slice(start, start + limit);
  return { items: page, ...(start + limit < items.length ? { next: keyOf(page.at(-1)!) } : {}) };
}
