import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { functionBuildOptions } from '../../lib/constructs/bundling';
import { bundleMaps, symbolicate } from '../../scripts/symbolicate';

describe('npm run symbolicate: a deployed function\'s stack trace back to the source', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfm-symbolicate-'));
    // Bundled as the stack bundles a function (minified, split, source maps beside the files).
    buildSync({ ...functionBuildOptions(), entryPoints: { index: join(__dirname, 'fixtures/throws.ts') }, outdir: dir, sourcemap: true, logLevel: 'silent' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let trace = '';

  it('maps the minified positions of a real trace (run without --enable-source-maps, as in Lambda) to the TypeScript file and line', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(`file://${join(dir, 'index.mjs')}`)}); try { await m.handler(); } catch (e) { process.stdout.write(e.stack); }`], { encoding: 'utf8' });
    trace = run.stdout;
    expect(trace).toContain('negative minutes');
    // Minified: the trace itself names only the bundle and a column of its one long line.
    expect(trace).not.toContain('throws.ts');
    expect(trace).toMatch(/index\.mjs:\d+:\d+/);
    const readable = symbolicate(trace, bundleMaps(dir));
    expect(readable).toMatch(/test\/unit\/fixtures\/throws\.ts:3:\d+/);
    expect(readable).toContain('negative minutes');
  });

  it('reads positions as Lambda prints them (file:///var/task/...) and leaves lines without a known bundle file as they are', () => {
    // The first frame of the trace above, as Lambda prints it from its task root.
    const frame = /index\.mjs:(\d+):(\d+)/.exec(trace)!;
    const line = `    at Runtime.handler (file:///var/task/index.mjs:${frame[1]}:${frame[2]})`;
    const other = '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)';
    const unknown = '    at x (file:///var/task/chunks/gone.mjs:1:5)';
    const out = symbolicate([line, other, unknown].join('\n'), bundleMaps(dir)).split('\n');
    expect(out[0]).toMatch(/test\/unit\/fixtures\/throws\.ts:3:\d+.*\[file:\/\/\/var\/task\/index\.mjs:\d+:\d+\]/);
    expect(out[1]).toBe(other);
    expect(out[2]).toBe(unknown);
  });

  it('says which trace file it cannot read, with the usage, on stderr and exit 2 (no Node stack trace)', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '../../scripts/symbolicate.ts'), dir, join(dir, 'missing.txt')], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
    expect(run.stderr).toContain(`error: cannot read the trace file ${join(dir, 'missing.txt')}: no such file.`);
    expect(run.stderr).toContain('Usage: npm run symbolicate -- <bundle-dir> [trace-file]');
    expect(run.stderr).not.toMatch(/ENOENT|at readFileSync|node:fs/);
  });
});
