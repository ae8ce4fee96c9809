import { conflict, defineProblems } from '../shared/errors';

/** The recruitment area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  CANDIDATE_HIRED: conflict('Candidate is hired'),
  CANDIDATE_REJECTED: conflict('Candidate is rejected'),
  CANDIDATE_WITHDRAWN: conflict('Candidate has withdrawn'),
  CANDIDATE_ERASED: conflict("Candidate's personal data is erased"),
  CANDIDATE_STAGE_PASSED: conflict('Candidate has passed this stage'),
  CANDIDATE_NOT_OFFERED: conflict('Candidate has no offer'),
  CANDIDATE_MESSAGE_LIMIT: conflict('Candidate message limit reached'),
});
