import * as z from 'zod';
import { pageSchema } from '../../services/shared/schemas/fields';

describe('pageSchema', () => {
  it('is one schema per item schema, so a route and its OpenAPI component are the same object', () => {
    const item = z.object({ id: z.uuid() });
    expect(pageSchema(item)).toBe(pageSchema(item));
    expect(pageSchema(item)).not.toBe(pageSchema(z.object({ id: z.uuid() })));
  });

  it('is a page: the items and the cursor of the next page (null on the last)', () => {
    const page = pageSchema(z.object({ n: z.number() }));
    expect(page.parse({ items: [{ n: 1 }], nextCursor: null })).toEqual({ items: [{ n: 1 }], nextCursor: null });
    expect(page.safeParse({ items: [{ n: 'x' }], nextCursor: null }).success).toBe(false);
  });
});
