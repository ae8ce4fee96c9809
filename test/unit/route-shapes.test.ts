import * as z from 'zod';
import { defineArea, routeRows } from '../../services/shared/area';
import { actionRoute, createRoute, listRoute, readRoute, removeRoute, updateRoute } from '../../services/shared/route-shapes';

const item = z.object({ id: z.uuid() });
const body = z.object({ name: z.string() }).strict();
const own = { path: '/things/{thingId}', scopes: ['materials:write'], summary: 'S', description: 'D.', schema: item, returns: 'The thing.' } as const;

describe('route shapes', () => {
  it('fix what every route of their shape answers and needs, and pass the rest through', () => {
    expect(listRoute({ ...own, path: '/things', query: z.object({}).strict() })).toEqual({
      method: 'GET',
      path: '/things',
      scopes: ['materials:write'],
      summary: 'S',
      description: 'D.',
      query: expect.any(z.ZodObject),
      success: { status: 200, description: 'The thing.', schema: item },
      problems: [],
    });
    expect(readRoute(own)).toMatchObject({ method: 'GET', success: { status: 200, headers: ['ETag'] } });
    expect(createRoute({ ...own, body })).toMatchObject({ method: 'POST', body, idempotencyKey: 'required', success: { status: 201, headers: ['ETag', 'Location'] } });
    expect(actionRoute({ ...own, problems: ['UNIQUENESS_CONFLICT'] })).toMatchObject({
      method: 'POST',
      ifMatch: 'required',
      idempotencyKey: 'required',
      success: { status: 200, description: 'The thing.', schema: item, headers: ['ETag'] },
      problems: ['UNIQUENESS_CONFLICT'],
    });
    expect(updateRoute({ ...own, body, idempotencyKey: 'optional' })).toMatchObject({ method: 'PATCH', ifMatch: 'required', idempotencyKey: 'optional', success: { headers: ['ETag'] } });
    expect(removeRoute(own)).toMatchObject({ method: 'DELETE', ifMatch: 'optional', idempotencyKey: 'optional', success: { status: 200, headers: ['ETag'] } });
  });

  it('leave nothing of their own in the contract (the route table, the gateway and OpenAPI read it whole)', () => {
    for (const shape of [listRoute(own), readRoute(own), createRoute({ ...own, body }), actionRoute(own), updateRoute({ ...own, body, idempotencyKey: 'required' }), removeRoute(own)]) {
      expect(Object.keys(shape)).not.toContain('returns');
      expect(Object.keys(shape)).not.toContain('schema');
    }
  });

  it('keep header needs literal, so the handler types If-Match as a string where it is required', () => {
    const area = defineArea({
      name: 'things',
      api: 'public',
      description: 'Things.',
      permissions: { table: [], cursorSecret: false, restrictedDataKey: false },
      auditEntityTypes: [],
      schemas: {},
      routes: { act: actionRoute(own) },
    });
    const needs: { ifMatch: 'required'; idempotencyKey: 'required' } = area.routes.act;
    expect(routeRows(area)[0]).toMatchObject({ operation: 'act', ...needs });
  });

});
