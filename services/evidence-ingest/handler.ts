import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { AppError } from '../shared/errors';
import { logger } from '../shared/logger';
import { uuid } from '../shared/time';
import { ingestEvidence, type IngestResult } from './ingest';
import { ingestVisitConfirmation } from '../planning/public';

/**
 * Lambda entry of the internal evidence channel: invoked directly by the scan service with
 * `{ organizationId, events: [...], visitConfirmations: [...] }` (results in that order); no
 * API routes to it. Each is appended on its own (its own transaction); a rejected one does
 * not stop the others. Visit confirmations are planning's (planning/public.ts).
 */
const batchSchema = z
  .object({ organizationId: uuid(), events: z.array(z.unknown()).max(100).default([]), visitConfirmations: z.array(z.unknown()).max(100).default([]) })
  .strict()
  .refine((b) => b.events.length + b.visitConfirmations.length > 0, { message: 'Send at least one event or visit confirmation.' });

export interface IngestBatchResult {
  readonly results: readonly (IngestResult | { readonly visitConfirmationId: string; readonly duplicate: boolean } | { readonly error: { readonly code: string; readonly detail: string } })[];
}

export const handler = async (event: unknown): Promise<IngestBatchResult> => {
  const batch = batchSchema.parse(event);
  const deps = { db: defaultDb(), now: () => new Date(), newId: randomUUID, seal: sealRestricted };
  const results = [];
  const items = [...batch.events.map((raw) => () => ingestEvidence(deps, batch.organizationId, raw)), ...batch.visitConfirmations.map((raw) => () => ingestVisitConfirmation(deps, batch.organizationId, raw))];
  for (const ingest of items) {
    try {
      results.push(await ingest());
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'INTERNAL_ERROR') throw error;
      logger.warn('Evidence rejected', { code: error.code, organizationId: batch.organizationId });
      results.push({ error: { code: error.code, detail: error.message } });
    }
  }
  return { results };
};
