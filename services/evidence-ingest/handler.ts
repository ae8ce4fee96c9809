import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sealRestricted } from '../shared/crypto/restricted';
import { defaultDb } from '../shared/ddb/client';
import { AppError } from '../shared/errors';
import { logger } from '../shared/logger';
import { uuid } from '../shared/time';
import { ingestEvidence, type IngestResult } from './ingest';

/**
 * Lambda entry of the internal evidence channel: invoked directly by the scan service with
 * `{ organizationId, events: [...] }`; no API routes to it. Each event is appended on its
 * own (its own transaction); a rejected event does not stop the others.
 */
const batchSchema = z.object({ organizationId: uuid(), events: z.array(z.unknown()).min(1).max(100) }).strict();

export interface IngestBatchResult {
  readonly results: readonly (IngestResult | { readonly error: { readonly code: string; readonly detail: string } })[];
}

export const handler = async (event: unknown): Promise<IngestBatchResult> => {
  const batch = batchSchema.parse(event);
  const deps = { db: defaultDb(), now: () => new Date(), newId: randomUUID, seal: sealRestricted };
  const results = [];
  for (const raw of batch.events) {
    try {
      results.push(await ingestEvidence(deps, batch.organizationId, raw));
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'INTERNAL_ERROR') throw error;
      logger.warn('Evidence rejected', { code: error.code, organizationId: batch.organizationId });
      results.push({ error: { code: error.code, detail: error.message } });
    }
  }
  return { results };
};
