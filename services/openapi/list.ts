import { z } from 'zod';

/** `{ items, nextCursor }` of a cursor-paged list. */
export const listOf = (item: z.ZodType) => z.object({ items: z.array(item), nextCursor: z.string().nullable().meta({ description: 'Opaque; pass it back as `cursor` with the same filters.' }) });
