import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';

/**
 * Turns a stack trace logged by a deployed function into source positions, with the source
 * maps that its bundle carries beside each file (index.mjs.map, chunks/*.mjs.map).
 *
 * The functions run without `--enable-source-maps` (parsing a bundle's maps at every cold
 * start costs ~15 ms, about a third of the import: docs/performance.md), so their traces
 * name minified positions; this maps them back, offline.
 *
 *   npm run symbolicate -- <bundle-dir> [trace-file]     (the trace on stdin without trace-file)
 *
 * <bundle-dir>: the function's code, e.g. unzipped from `aws lambda get-function --function-name
 * <name> --query Code.Location`, or cdk.out/asset.<hash> of the same commit's `cdk synth`.
 */

/** `<path>.mjs:<line>:<column>` as V8 prints it, `file:///var/task/` or a plain path before it. */
const POSITION = /(?:file:\/\/)?([^\s()]*?([\w.-]+(?:\/[\w.-]+)*\.mjs)):(\d+):(\d+)/g;

/** The bundle file a trace names, relative to the bundle folder: `chunks/<name>.mjs` or the entry's own name (the folder it ran from does not matter). */
function bundleRelative(path: string): string {
  const parts = path.split('/');
  const file = parts[parts.length - 1];
  return parts[parts.length - 2] === 'chunks' ? `chunks/${file}` : file;
}

/** Every `file.mjs:line:col` of `trace` with its source position appended; lines without one stay as they are. */
export function symbolicate(trace: string, mapOf: (bundleFile: string) => TraceMap | undefined): string {
  return trace.replace(POSITION, (whole, path: string, _tail: string, line: string, column: string) => {
    const map = mapOf(bundleRelative(path));
    if (!map) return whole;
    const original = originalPositionFor(map, { line: Number(line), column: Number(column) - 1 });
    if (original.source === null) return whole;
    const source = original.source.replace(/^(\.\.\/)+/, '');
    return `${source}:${original.line}:${(original.column ?? 0) + 1}${original.name ? ` (${original.name})` : ''} [${whole}]`;
  });
}

/** The maps of one bundle folder, read once each. */
export function bundleMaps(dir: string): (bundleFile: string) => TraceMap | undefined {
  const cache = new Map<string, TraceMap | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      const mapFile = join(dir, `${file}.map`);
      cache.set(file, existsSync(mapFile) ? new TraceMap(readFileSync(mapFile, 'utf8')) : undefined);
    }
    return cache.get(file);
  };
}

const USAGE = 'Usage: npm run symbolicate -- <bundle-dir> [trace-file]\n  <bundle-dir> holds index.mjs and index.mjs.map (a function\'s unzipped code, or cdk.out/asset.<hash>).\n  [trace-file] holds the logged stack trace; without it the trace is read from stdin.\n';

/** Says what is wrong, then the usage, on stderr; exit 2. */
function refuse(problem: string): never {
  process.stderr.write(`error: ${problem}\n${USAGE}`);
  process.exit(2);
}

function main(): void {
  const [dir, traceFile] = process.argv.slice(2);
  if (!dir) refuse('no bundle folder given.');
  if (!existsSync(join(dir, 'index.mjs.map'))) refuse(`${join(dir, 'index.mjs.map')} does not exist: <bundle-dir> is not a function's code with its source maps.`);
  let trace: string;
  try {
    trace = readFileSync(traceFile ?? 0, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    refuse(`cannot read the trace file ${traceFile ?? '(stdin)'}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message}.`);
  }
  process.stdout.write(symbolicate(trace, bundleMaps(dir)));
}

if (process.argv[1] && /symbolicate\.ts$/.test(process.argv[1])) main();
