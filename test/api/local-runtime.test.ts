import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm start`'s entry as a real process: it must print `ready`, serve 401 problems with
 * X-Request-Id, write demo.json, and stop on SIGTERM with DynamoDB Local (Java) gone.
 */
describe('the local runtime (npm start)', () => {
  const localDir = mkdtempSync(join(tmpdir(), 'wfm-local-'));
  let child: ChildProcess;
  let output = '';

  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('starts, answers, and stops cleanly on SIGTERM without leaving Java behind', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'services/local/main.ts', '--in-memory'], {
      env: { ...process.env, PORT: '0', WFM_LOCAL_DIR: localDir, TABLE_NAME: '', DYNAMODB_ENDPOINT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const ready = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line within 90 s:\n${output}`)), 90_000);
      child.stdout!.on('data', () => {
        const match = /^ready (http:\/\/\S+)$/m.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before ready:\n${output}`)));
    });
    const javaPid = Number(/DynamoDB Local pid (\d+)/.exec(output)?.[1]);
    expect(javaPid).toBeGreaterThan(0);
    // The embedded S3 server for documents runs in the same process.
    const s3Endpoint = /S3 \(s3rver\) at (http:\/\/\S+),/.exec(output)?.[1];
    expect([200, 403]).toContain((await fetch(`${s3Endpoint}/wfm-local-documents?list-type=2`)).status);

    const demo = JSON.parse(readFileSync(join(localDir, 'demo.json'), 'utf8')) as { baseUrl: string; keys: Record<string, string> };
    expect(demo.baseUrl.startsWith(`${ready}/v1/organizations/`)).toBe(true);
    expect(Object.keys(demo.keys).sort()).toEqual(['admin', 'gated', 'live', 'otherOrganization', 'readOnly', 'scim', 'timesheetsNoWorkEvents']);
    const res = await fetch(`${demo.baseUrl}/timesheets`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect((await fetch(`${demo.baseUrl}/timesheets`, { headers: { Authorization: `Bearer ${demo.keys.admin}` } })).status).toBe(200);
    // The API reference and its document, without a key.
    for (const [path, type] of [['/docs', 'text/html; charset=utf-8'], ['/v1/openapi.json', 'application/json']]) {
      const doc = await fetch(`${ready}${path}`);
      expect({ path, status: doc.status, type: doc.headers.get('content-type') }).toEqual({ path, status: 200, type });
    }

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
    expect(() => process.kill(javaPid, 0)).toThrow();
    expect(existsSync(join(localDir, 'runtime.json'))).toBe(false);
  }, 150_000);
});
