import { conflict, defineProblems } from '../shared/errors';

/** The documents area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  UPLOAD_SESSION_COMPLETED: conflict('Upload session already completed'),
  UPLOAD_SESSION_EXPIRED: conflict('Upload session expired'),
  UPLOAD_NOT_RECEIVED: conflict('Nothing uploaded yet'),
  DOCUMENT_NOT_AVAILABLE: conflict('Document not available'),
});
