import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { seedDemo, type DemoData } from '../../services/local/seed';
import { progress } from '../../services/cli/progress';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * Progress of the operator CLI: on stderr only (stdout stays the result, for pipes and
 * scripts), one rewritten counter line on a terminal, a plain line per page or batch otherwise.
 */
describe('progress()', () => {
  const stream = (isTTY: boolean) => {
    const text: string[] = [];
    return { isTTY, write: (t: string) => text.push(t), text };
  };
  let clock = 0;
  const now = () => clock;

  it('writes one plain line per update and a summary with the elapsed time when not on a terminal', () => {
    const s = stream(false);
    clock = 0;
    const p = progress('keys checked', s, now);
    p.update(1, 3, 'k-1');
    p.update(2, 3);
    clock = 1500;
    p.done('3 keys');
    expect(s.text.join('')).toBe('keys checked: 1/3 k-1\nkeys checked: 2/3\nkeys checked: 3 keys (1.5 s)\n');
  });

  it('rewrites one counter line on a terminal and ends it with the summary', () => {
    const s = stream(true);
    clock = 0;
    const p = progress('reading keys', s, now);
    p.update(100, undefined, '(page 1)');
    p.update(250, undefined, '(page 2)');
    p.done('250 keys');
    expect(s.text).toEqual(['\rreading keys: 100 (page 1)\x1b[K', '\rreading keys: 250 (page 2)\x1b[K', '\rreading keys: 250 keys (0.0 s)\x1b[K\n']);
  });
});

describe('the CLI on DynamoDB Local', () => {
  let db: Db;
  let demo: DemoData;
  beforeAll(async () => {
    db = await createTestTable();
    demo = await seedDemo(db, 'cli-progress-seed');
  });

  const run = (script: string, args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join('services/cli', script), ...args], {
      cwd: join(__dirname, '../..'),
      encoding: 'utf8',
      env: { ...process.env, TABLE_NAME: db.tableName, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
      timeout: 60_000,
    });

  it('lists keys on stdout and its reading progress on stderr', () => {
    const out = run('keys.ts', ['list', '--org', demo.organizationId]);
    expect(out.status).toBe(0);
    const rows = out.stdout.trim().split('\n');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => /^[^ ]+ {2}(TEST|LIVE) /.test(row))).toBe(true);
    expect(out.stdout).not.toMatch(/reading keys/);
    expect(out.stderr).toMatch(/^reading keys: \d+ \(page 1\)$/m);
    expect(out.stderr).toMatch(new RegExp(`^reading keys: ${rows.length} keys \\(\\d+\\.\\d s\\)$`, 'm'));
  });

  it('lists organizations on stdout and its reading progress on stderr', () => {
    const out = run('orgs.ts', ['list']);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(demo.organizationId);
    expect(out.stdout).not.toMatch(/reading organizations/);
    expect(out.stderr).toMatch(/^reading organizations: \d+ organizations \(\d+\.\d s\)$/m);
  });
});
