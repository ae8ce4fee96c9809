import { allowedStages, erasedCandidate, erasedMessage, PERSONAL_ATTRIBUTES, stageMove, type Candidate, type CandidateMessage, type Stage } from '../../services/recruitment/domain';
import { STAGES } from '../../services/recruitment/model';

/** The pipeline's transition rule and the erasure rule, as pure functions. */

describe('stageMove', () => {
  const move = (from: Stage, to: Stage) => {
    const outcome = stageMove(from, to);
    return outcome.kind === 'refused' ? outcome.problem.code : outcome.kind;
  };

  it('moves forward through the open stages, skipping allowed', () => {
    expect(move('APPLIED', 'SCREENING')).toBe('move');
    expect(move('SCREENING', 'INTERVIEW')).toBe('move');
    expect(move('INTERVIEW', 'OFFER')).toBe('move');
    expect(move('APPLIED', 'INTERVIEW')).toBe('move');
    expect(move('APPLIED', 'OFFER')).toBe('move');
  });

  it('never moves back: a passed stage is CANDIDATE_STAGE_PASSED', () => {
    expect(move('SCREENING', 'APPLIED')).toBe('CANDIDATE_STAGE_PASSED');
    expect(move('OFFER', 'INTERVIEW')).toBe('CANDIDATE_STAGE_PASSED');
    expect(move('INTERVIEW', 'SCREENING')).toBe('CANDIDATE_STAGE_PASSED');
  });

  it('keeps the current open stage as it is', () => {
    for (const stage of ['APPLIED', 'SCREENING', 'INTERVIEW', 'OFFER'] as const) expect(move(stage, stage)).toBe('unchanged');
  });

  it('hires only from OFFER', () => {
    expect(move('OFFER', 'HIRED')).toBe('move');
    for (const stage of ['APPLIED', 'SCREENING', 'INTERVIEW'] as const) expect(move(stage, 'HIRED')).toBe('CANDIDATE_NOT_OFFERED');
  });

  it('rejects or withdraws from every open stage', () => {
    for (const stage of ['APPLIED', 'SCREENING', 'INTERVIEW', 'OFFER'] as const) {
      expect(move(stage, 'REJECTED')).toBe('move');
      expect(move(stage, 'WITHDRAWN')).toBe('move');
    }
  });

  it('keeps the final stages final, each with its own code, whatever the target', () => {
    for (const to of STAGES) {
      expect(move('HIRED', to)).toBe('CANDIDATE_HIRED');
      expect(move('REJECTED', to)).toBe('CANDIDATE_REJECTED');
      expect(move('WITHDRAWN', to)).toBe('CANDIDATE_WITHDRAWN');
    }
  });

  it('lists the allowed moves of each stage', () => {
    expect(allowedStages('APPLIED')).toEqual(['SCREENING', 'INTERVIEW', 'OFFER', 'REJECTED', 'WITHDRAWN']);
    expect(allowedStages('INTERVIEW')).toEqual(['OFFER', 'REJECTED', 'WITHDRAWN']);
    expect(allowedStages('OFFER')).toEqual(['HIRED', 'REJECTED', 'WITHDRAWN']);
    expect(allowedStages('HIRED')).toEqual([]);
  });
});

describe('erasure', () => {
  const candidate: Candidate = {
    id: 'c1',
    organizationId: 'o1',
    givenName: 'Ines',
    familyName: 'Navarro',
    email: 'ines.navarro@mail.example',
    phone: '+49 170 1234567',
    position: 'Cleaner',
    source: 'Referral by Tom Berg',
    stage: 'HIRED',
    stageChangedAt: '2030-01-02T00:00:00.000Z',
    employeeId: 'e1',
    hiredAt: '2030-01-02T00:00:00.000Z',
    messageCount: 2,
    erased: false,
    erasedAt: null,
    version: 4,
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-02T00:00:00.000Z',
  };

  it('nulls every personal attribute and keeps the pipeline facts', () => {
    const erased = erasedCandidate(candidate, '2030-02-01T00:00:00.000Z');
    for (const attribute of PERSONAL_ATTRIBUTES) expect(erased[attribute]).toBeNull();
    expect(erased).toMatchObject({ position: 'Cleaner', stage: 'HIRED', employeeId: 'e1', hiredAt: candidate.hiredAt, createdAt: candidate.createdAt, erased: true, erasedAt: '2030-02-01T00:00:00.000Z', version: 5 });
    const text = JSON.stringify(erased);
    for (const value of ['Ines', 'Navarro', 'ines.navarro', '1234567', 'Tom Berg']) expect(text).not.toContain(value);
  });

  it('nulls subject and body of a message and keeps direction, channel and time', () => {
    const message: CandidateMessage = { id: 'm1', organizationId: 'o1', candidateId: 'c1', direction: 'INBOUND', channel: 'EMAIL', subject: 'Hello from Ines', body: 'My number is 1234567', erased: false, recordedAt: '2030-01-01T10:00:00.000Z' };
    expect(erasedMessage(message)).toEqual({ ...message, subject: null, body: null, erased: true });
  });
});
