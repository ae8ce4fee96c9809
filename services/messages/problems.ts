import { conflict, defineProblems } from '../shared/errors';

/** The messages area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  MESSAGE_SENT: conflict('Message already sent'),
  MESSAGE_RETRACTED: conflict('Message retracted'),
  MESSAGE_NO_RECIPIENTS: { status: 422, title: 'The audience has no recipients' },
  MESSAGE_TOO_MANY_RECIPIENTS: { status: 422, title: 'The audience has too many recipients' },
});
