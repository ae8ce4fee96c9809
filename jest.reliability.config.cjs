/**
 * `npm run test:reliability`: the drills of test/reliability (concurrency, faults, fuzzing,
 * authorization matrix, the consistency checker). Same transform, module mapping and global
 * setup (one DynamoDB Local per run) as jest.config.cjs; the drill files end in `.drill.ts`
 * so that the plain `jest` run does not pick them up twice when `npm test` runs both.
 */
const base = require('./jest.config.cjs');

module.exports = {
  ...base,
  displayName: 'reliability',
  roots: ['<rootDir>/test/reliability'],
  testMatch: ['**/*.drill.ts'],
  testTimeout: 180000,
  // The drills time and kill servers: one at a time, as before (the main suite runs two workers).
  maxWorkers: 1,
};
