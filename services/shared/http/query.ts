import * as z from 'zod';
import { MAX_LIMIT } from './list';

/** `limit`: a whole number from 1 to 200 (decisions.md: default 50, outside 1..200 is 422). */
export const limitParameter = () =>
  z
    .string()
    .regex(/^\d+$/, { message: `limit must be a whole number from 1 to ${MAX_LIMIT}.` })
    .meta({ description: `Page size, 1 to ${MAX_LIMIT}; default 50.` })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: `limit must be from 1 to ${MAX_LIMIT}.` }).max(MAX_LIMIT, { message: `limit must be from 1 to ${MAX_LIMIT}.` }))
    .optional();
