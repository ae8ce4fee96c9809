import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { seedDemo } from '../../services/local/seed';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * The operator commands refuse a command line they do not understand, on stderr with exit 2,
 * saying what they did not understand: an unknown subcommand, option or argument, or an --org
 * that is no organization id. Run against a real table, so that a command line taken as valid
 * would run (and, e.g., list no keys with exit 0) instead of being refused.
 */
describe('operator commands with a command line they do not understand', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createTestTable();
    await seedDemo(db, 'cli-usage-seed');
  });

  const run = (script: string, args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: join(__dirname, '../..'),
      encoding: 'utf8',
      env: { ...process.env, TABLE_NAME: db.tableName, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      timeout: 60_000,
    });

  it.each([
    ['keys.ts', 'bogus', /^Manage API keys/m],
    ['orgs.ts', 'bogus', /^Manage organizations/m],
    ['consumers.ts', 'list', /^Release gate/m],
  ])('%s %s: says the command is unknown, then the usage, on stderr, exit 2', (script, command, usage) => {
    const out = run(join('services/cli', script), [command]);
    expect({ status: out.status, stdout: out.stdout }).toEqual({ status: 2, stdout: '' });
    expect(out.stderr).toMatch(new RegExp(`^error: unknown command "${command}"$`, 'm'));
    expect(out.stderr).toMatch(usage);
  });

  it('keys with a help request or no command prints the usage on stdout, exit 0', () => {
    for (const args of [[], ['help']]) {
      const out = run('services/cli/keys.ts', args);
      expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: '' });
      expect(out.stdout).toMatch(/^Manage API keys/);
    }
  });

  it.each([['list'], ['sync-usage-plan'], ['create', '--label', 'x', '--scopes', 'timesheets:read']])('keys %s --org nope: refused, an organization id is a UUID', (command, ...rest) => {
    const out = run('services/cli/keys.ts', [command, '--org', 'nope', ...rest]);
    expect({ status: out.status, stdout: out.stdout }).toEqual({ status: 2, stdout: '' });
    expect(out.stderr).toMatch(/^error: --org must be an organization id \(a UUID\), got "nope"\.$/m);
  });

  it('check:consistency --bogus: refuses the unknown option instead of checking without it', () => {
    const out = run('scripts/check-consistency.ts', ['--bogus']);
    expect({ status: out.status, stdout: out.stdout }).toEqual({ status: 2, stdout: '' });
    expect(out.stderr).toMatch(/^error: Unknown option '--bogus'/m);
    expect(out.stderr).toMatch(/^Usage: npm run check:consistency/m);
  });

  it('backfill:overlap-days bogus: the unknown argument and the usage go to stderr, exit 2', () => {
    const out = run('services/cli/backfill-overlap-days.ts', ['bogus']);
    expect({ status: out.status, stdout: out.stdout }).toEqual({ status: 2, stdout: '' });
    expect(out.stderr).toMatch(/^error: unknown argument "bogus"$/m);
    expect(out.stderr).toMatch(/^Backfills the employees' day items/m);
  });
});
