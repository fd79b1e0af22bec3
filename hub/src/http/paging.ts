import { z } from 'zod';

/** `limit` (1..100, default 20) and `offset` (>= 0): out-of-range values are refused, never clamped. */
export const limitOffsetQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
export type LimitOffset = z.infer<typeof limitOffsetQuery>;

export function limitOffsetPage<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
}
