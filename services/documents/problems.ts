import { defineProblems } from '../shared/errors';

/** The documents area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  UPLOAD_SESSION_COMPLETED: { status: 409, title: 'Upload session already completed' },
  UPLOAD_SESSION_EXPIRED: { status: 409, title: 'Upload session expired' },
  UPLOAD_NOT_RECEIVED: { status: 409, title: 'Nothing uploaded yet' },
  DOCUMENT_NOT_AVAILABLE: { status: 409, title: 'Document not available' },
});
