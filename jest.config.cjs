/**
 * One jest run for every test folder. DynamoDB Local is started once per run by
 * test/support/global-setup.ts; each test file creates its own table from the same
 * table spec the stack deploys.
 *
 * The project is ESM ("type": "module"); jest runs the TypeScript as CommonJS through
 * ts-jest (transpile only: `npm run typecheck` does the type checking). middy 7 ships
 * ESM with only an `import` export condition, so its packages are mapped to their entry
 * file and transpiled too.
 */
const tsJest = [
  'ts-jest',
  {
    tsconfig: {
      target: 'ES2022',
      module: 'CommonJS',
      moduleResolution: 'Node10',
      esModuleInterop: true,
      allowJs: true,
      isolatedModules: true,
      skipLibCheck: true,
      resolveJsonModule: true,
    },
  },
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.[tj]s$': tsJest },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: { '^@middy/([^/]+)$': '<rootDir>/node_modules/@middy/$1/index.js' },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 60000,
  // Two worker processes, also on a 2-core CI machine (jest's default there is one, which runs
  // every file inside jest's own process): the tests mostly wait on DynamoDB Local, so two
  // workers overlap that waiting, and no test file's leftovers (timers, handles, process state)
  // reach the process that reports the verdict. A worker that grows past the limit between
  // files is replaced, so memory stays flat as the suite grows.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1GB',
};
