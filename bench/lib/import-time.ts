import { spawnSync } from 'node:child_process';

/**
 * One fresh Node process: the time to import the bundle `file` inside it, and the whole
 * process's time. Module-scope code may read its configuration, so the process gets what Lambda
 * would give it, plus `env`.
 */
export function loadOnce(file: string, env: Readonly<Record<string, string>> = {}): { importMs: number; processMs: number } {
  const script = `const t = performance.now(); await import(${JSON.stringify(`file://${file}`)}); process.stdout.write(String(performance.now() - t));`;
  const start = performance.now();
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-central-1', TABLE_NAME: 'bench', API_ENVIRONMENT: 'TEST', POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_LAMBDA_FUNCTION_NAME: 'bench', ...env },
    timeout: 60_000,
  });
  const processMs = performance.now() - start;
  if (res.status !== 0) throw new Error(`Loading ${file} failed: ${res.stderr.slice(-1000)}`);
  return { importMs: Number(res.stdout), processMs };
}
