import * as z from 'zod';
import { responseOf } from '../../services/shared/schemas/response';

const schema = z.object({ id: z.string(), tags: z.array(z.string()), total: z.number(), note: z.string().optional() });
const entity = { id: 'a', tags: ['x'] as readonly string[], totalMinor: 1250, secretHash: 'never leaves', note: 'n' };

describe('responseOf', () => {
  it('copies the members the schema names, in its order, and nothing else of the entity', () => {
    const body = responseOf(schema, entity, { total: entity.totalMinor / 100 });
    expect(body).toEqual({ id: 'a', tags: ['x'], total: 12.5, note: 'n' });
    expect(Object.keys(body)).toEqual(['id', 'tags', 'total', 'note']);
    expect(JSON.stringify(body)).not.toContain('never leaves');
  });

  it('leaves an optional member out when its computed value is undefined, never falling back to the entity', () => {
    const body = responseOf(schema, entity, { total: 1, note: undefined });
    expect(Object.keys(body)).toEqual(['id', 'tags', 'total']);
  });

  it('is checked by tsc: a member the entity lacks must be computed', () => {
    // @ts-expect-error `total` is neither the entity's member nor computed
    responseOf(schema, entity);
    expect(responseOf(schema, { ...entity, total: 3 }).total).toBe(3);
  });
});
