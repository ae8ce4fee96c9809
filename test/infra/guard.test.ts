import { join } from 'node:path';
import { CfnElement, NestedStack, Stack, Validations, type App } from 'aws-cdk-lib';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { GUARD_PLUGIN } from '../../lib/guard';
import { synthesize } from './fixture';

/**
 * The AWS Control Tower proactive controls (cfn-guard) on every template, nested stacks
 * included: the plugin that runs on every synth sees only the top-level templates, so this
 * runs it over all of them. Every finding must be acknowledged at or above its resource
 * (lib/guard.ts holds the reasons), and every acknowledgement must answer a real finding.
 */
interface Finding {
  readonly rule: string;
  readonly path: string;
}

function acknowledged(app: App): { path: string; rule: string; reason: string }[] {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ path: construct.node.path, id, reason })))
      .filter((a) => a.id.startsWith(`${GUARD_PLUGIN}::`))
      .map((a) => ({ path: a.path, rule: a.id.slice(GUARD_PLUGIN.length + 2), reason: a.reason })),
  );
}

function findingsOf(built: ReturnType<typeof synthesize>): Finding[] {
  const stacks: Stack[] = [built.data, built.api, ...built.api.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)];
  const pathOf = new Map<string, string>();
  for (const stack of stacks) {
    const file = join(built.assembly.directory, stack.templateFile);
    for (const element of stack.node.findAll().filter((c): c is CfnElement => CfnElement.isCfnElement(c) && Stack.of(c) === stack)) {
      pathOf.set(`${file}\n${stack.getLogicalId(element)}`, element.node.path);
    }
  }
  const templatePaths = stacks.map((s) => join(built.assembly.directory, s.templateFile));
  const report = new CfnGuardValidator({ maxBuffer: 64 * 1024 * 1024 }).validate({ templatePaths } as never);
  return report.violations.flatMap((v) =>
    v.violatingResources.map((r) => ({ rule: v.ruleName, path: pathOf.get(`${r.templatePath}\n${r.resourceLogicalId}`) ?? `${r.templatePath}#${r.resourceLogicalId}` })),
  );
}

describe.each(['test', 'live'])('Control Tower guard rules, env %s', (env) => {
  const built = synthesize({ env });
  const findings = findingsOf(built);
  const acks = acknowledged(built.app);
  const covers = (ack: { path: string; rule: string }, f: Finding) => f.rule === ack.rule && (f.path === ack.path || f.path.startsWith(`${ack.path}/`));

  it('finds something to check in the nested stacks too', () => {
    expect(findings.some((f) => /\/Area[A-Z]/.test(f.path))).toBe(true);
  });

  it('acknowledges every finding, with its reason, next to the resource', () => {
    const open = findings.filter((f) => !acks.some((a) => covers(a, f)));
    expect(open).toEqual([]);
    for (const ack of acks) expect(ack.reason.length).toBeGreaterThanOrEqual(60);
  });

  it('acknowledges only findings that occur', () => {
    for (const ack of acks) expect({ ack: `${ack.rule} at ${ack.path}`, answered: findings.some((f) => covers(ack, f)) }).toEqual({ ack: `${ack.rule} at ${ack.path}`, answered: true });
  });
});
