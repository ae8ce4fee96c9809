import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { seedDemo, type DemoData } from '../../services/local/seed';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * `npm run keys` on a deployed table (TABLE_NAME without DYNAMODB_ENDPOINT): only the
 * subcommands that register or disable a key's usage-plan key need USAGE_PLAN_ID. The table
 * is DynamoDB Local, reached through the SDK's own AWS_ENDPOINT_URL_DYNAMODB, so the command
 * takes it for a deployed one.
 */
describe('npm run keys on a deployed table without USAGE_PLAN_ID', () => {
  let db: Db;
  let demo: DemoData;
  beforeAll(async () => {
    db = await createTestTable();
    demo = await seedDemo(db, 'cli-keys-seed');
  });

  const keys = (args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, TABLE_NAME: db.tableName, AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
    delete env.DYNAMODB_ENDPOINT;
    delete env.USAGE_PLAN_ID;
    return spawnSync(process.execPath, ['--import', 'tsx', join('services/cli', 'keys.ts'), ...args], { cwd: join(__dirname, '../..'), encoding: 'utf8', env, timeout: 60_000 });
  };

  it('lists keys: reading needs no usage plan', () => {
    const out = keys(['list', '--org', demo.organizationId]);
    expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: expect.stringContaining(`using table ${db.tableName} in `) });
    expect(out.stdout).toMatch(/^[^ ]+ {2}(TEST|LIVE) /m);
  });

  it('refuses create and revoke, which register and disable usage-plan keys, naming USAGE_PLAN_ID', () => {
    const create = keys(['create', '--org', demo.organizationId, '--label', 'No plan', '--scopes', 'timesheets:read']);
    expect({ status: create.status, stdout: create.stdout }).toEqual({ status: 2, stdout: '' });
    expect(create.stderr).toMatch(/^error: create on a deployed table needs USAGE_PLAN_ID/m);
    const revoke = keys(['revoke', 'somekeyid']);
    expect(revoke.status).toBe(2);
    expect(revoke.stderr).toMatch(/^error: revoke on a deployed table needs USAGE_PLAN_ID/m);
  });
});
