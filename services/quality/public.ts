/**
 * What other areas may use of quality (its declared port): the inspection key, to read where
 * an inspection was made, and the existence check their transactions carry (feedback that
 * references an inspection).
 */
import { qualityKeys } from './model';

export { INSPECTION_LABEL, inspectionExistsCheck } from './store';
export const inspectionKeys = { inspection: qualityKeys.inspection };
/** For the demo seed: item builders and the exact score. */
export { inspectionToItem, revisionToItem, templateToItem, type Inspection, type Template } from './model';
export { weightedScore } from './domain-score';
