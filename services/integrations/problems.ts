import { conflict, defineProblems } from '../shared/errors';

/** The integrations area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  INTEGRATION_EXISTS: conflict('The provider is already connected'),
  INTEGRATION_DISABLED: conflict('The integration is disabled'),
  INTEGRATION_CREDENTIALS_MISSING: conflict('The integration has no credentials yet'),
  OUTBOX_RECORD_SENT: conflict('The payroll outbox record was already sent'),
  OUTBOX_RECORD_IN_DISPATCH: conflict('Another job is dispatching the payroll outbox record'),
  EXPORT_MANIFEST_STALE: conflict('The export manifest is stale: request a replacement'),
});
