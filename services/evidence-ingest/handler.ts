import { randomUUID } from 'node:crypto';
import { sealRestricted, type SealedValue } from '../shared/crypto/restricted';
import { defaultDb, type Db } from '../shared/ddb/client';
import { inUnitOfWork, READ_ONLY_UNIT } from '../shared/ddb/unit-of-work';
import { AppError } from '../shared/errors';
import { parseInput } from '../shared/http/validation';
import { logger } from '../shared/logger';
import { duplicateOf, EventAlreadyIngestedError, ingestScan, type IngestResult } from './domain';
import { batchSchema, evidenceSchema } from './schemas';
import { evidencePorts, evidenceStore } from './store';
import { ingestVisitConfirmation } from '../planning/public';

/**
 * Lambda entry of the internal evidence channel: invoked directly by the scan service with
 * `{ organizationId, events: [...], visitConfirmations: [...] }` (results in that order); no
 * API routes to it. Each is appended on its own (its own transaction); a rejected one does
 * not stop the others. Visit confirmations are planning's (planning/public.ts).
 */

export interface IngestDeps {
  readonly db: Db;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly seal: (value: unknown) => Promise<SealedValue>;
}

export type { IngestResult } from './domain';

/**
 * Ingests one event: validates it (422 at the field), runs the use case in one unit of work
 * (again while a read went stale), and answers a concurrent delivery of the same id that
 * committed first with that delivery's outcome. Also the seed's and the tests' way in.
 */
export async function ingestEvidence(deps: IngestDeps, organizationId: string, raw: unknown): Promise<IngestResult> {
  const parsed = parseInput(evidenceSchema, raw, 'body');
  const input = { ...parsed, id: parsed.id ?? deps.newId() };
  try {
    return await inUnitOfWork(deps.db, (unit) => ingestScan(evidencePorts(deps.db, unit, deps.now(), deps), organizationId, input));
  } catch (error) {
    if (!(error instanceof EventAlreadyIngestedError)) throw error;
    return duplicateOf(input.id, await evidenceStore(deps.db, READ_ONLY_UNIT).getWorkEvent(organizationId, input.id));
  }
}

export interface IngestBatchResult {
  readonly results: readonly (IngestResult | { readonly visitConfirmationId: string; readonly duplicate: boolean } | { readonly error: { readonly code: string; readonly detail: string } })[];
}

export const handler = async (event: unknown): Promise<IngestBatchResult> => {
  const batch = batchSchema.parse(event);
  const deps: IngestDeps = { db: defaultDb(), now: () => new Date(), newId: randomUUID, seal: sealRestricted };
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
