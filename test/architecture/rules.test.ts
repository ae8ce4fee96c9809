import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The architecture rules (.dependency-cruiser.cjs, docs/architecture.md) are real: run over
 * test/architecture/fixture, a tree with one deliberate violation per rule, each rule reports
 * exactly the violation it is there for; run over services/, nothing is reported.
 */
interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

function cruise(cwd: string): Violation[] {
  const bin = resolve('node_modules/.bin/depcruise');
  const args = ['services', '--config', resolve('.dependency-cruiser.cjs'), '--ts-config', resolve('tsconfig.json'), '--output-type', 'json'];
  let out: string;
  try {
    out = execFileSync(bin, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    // depcruise exits non-zero when it finds violations; the report is still on stdout.
    out = (error as { stdout: string }).stdout;
  }
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

const found = (violations: Violation[]) => violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, '')}`).sort();

describe('architecture rules', () => {
  it('report each deliberate violation of the fixture tree, and nothing that is allowed', () => {
    expect(found(cruise(resolve('test/architecture/fixture')))).toEqual([
      'areas-through-ports: services/beta/store.ts -> services/alpha/handler.ts',
      'areas-through-ports: services/beta/store.ts -> services/alpha/store.ts',
      'domain-is-pure: services/beta/domain.ts -> services/beta/store.ts',
      'handlers-are-entries: services/beta/store.ts -> services/alpha/handler.ts',
      'no-cycles: services/alpha/domain.ts -> services/alpha/model.ts',
      'sdk-only-in-stores: services/alpha/schemas.ts -> @aws-sdk/lib-dynamodb/dist-cjs/index.js',
      'seeds-are-local: services/alpha/handler.ts -> services/alpha/seed.ts',
      'shared-knows-no-area: services/shared/util.ts -> services/alpha/model.ts',
    ]);
  });

  it('hold for services/', () => {
    expect(found(cruise(process.cwd()))).toEqual([]);
  });
});
