import { FENCE_LABEL, fenceFromItem, planStaleness, reportKeys } from '../reports/public';
import type { ExportsPort } from './store';

/**
 * The reports area as the exports port of time-entry revisions (store.ts, ExportsPort). Only
 * the handler imports this file: reports reads entries through timesheets/public.ts, which
 * must not lead back to reports.
 */
export const reportsExports: ExportsPort = { fenceLabel: FENCE_LABEL, fenceKey: reportKeys.fence, fenceFromItem, planStaleness };
