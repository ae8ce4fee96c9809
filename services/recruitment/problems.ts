import { defineProblems } from '../shared/errors';

/** The recruitment area's own problem codes (docs/errors.md documents each); the domain throws them as `new AppError(PROBLEMS.X, detail)`. */
export const PROBLEMS = defineProblems({
  CANDIDATE_HIRED: { status: 409, title: 'Candidate is hired' },
  CANDIDATE_REJECTED: { status: 409, title: 'Candidate is rejected' },
  CANDIDATE_WITHDRAWN: { status: 409, title: 'Candidate has withdrawn' },
  CANDIDATE_ERASED: { status: 409, title: "Candidate's personal data is erased" },
  CANDIDATE_STAGE_PASSED: { status: 409, title: 'Candidate has passed this stage' },
  CANDIDATE_NOT_OFFERED: { status: 409, title: 'Candidate has no offer' },
  CANDIDATE_MESSAGE_LIMIT: { status: 409, title: 'Candidate message limit reached' },
});
