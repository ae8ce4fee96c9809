import { defineProblems } from '../shared/errors';

/** The integrations area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  INTEGRATION_EXISTS: { status: 409, title: 'The provider is already connected' },
  INTEGRATION_DISABLED: { status: 409, title: 'The integration is disabled' },
  INTEGRATION_CREDENTIALS_MISSING: { status: 409, title: 'The integration has no credentials yet' },
  OUTBOX_RECORD_SENT: { status: 409, title: 'The payroll outbox record was already sent' },
  OUTBOX_RECORD_IN_DISPATCH: { status: 409, title: 'Another job is dispatching the payroll outbox record' },
  EXPORT_MANIFEST_STALE: { status: 409, title: 'The export manifest is stale: request a replacement' },
});
