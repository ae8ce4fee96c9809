import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations, type App } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../../lib/app';
import { freshApp, synthesize } from './fixture';

/** AWS Solutions checks that ignore every acknowledgement: the findings the acknowledgements answer. */
class UnacknowledgedChecks extends AwsSolutionsChecks {}
(UnacknowledgedChecks.prototype as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;

interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

function acknowledgementsOf(app: App): Acknowledgement[] {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
      ),
  );
}

describe.each(['test', 'live'])('cdk-nag AWS Solutions checks, env %s', (env) => {
  const built = synthesize({ env }, { guardRules: true });

  it('synthesizes with zero unacknowledged findings', () => {
    const report = JSON.parse(readFileSync(join(built.assembly.directory, 'validation-report.json'), 'utf8')) as { pluginReports: { violations?: unknown[] }[] };
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
    const direct = new AwsSolutionsChecks().validateScope(built.app);
    expect(direct.violations).toEqual([]);
    expect(direct.success).toBe(true);
  });

  it('gives every acknowledgement a reason of a sentence or more', () => {
    const acknowledgements = acknowledgementsOf(built.app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const ack of acknowledgements) expect({ ...ack, long: ack.reason.length >= 60 }).toMatchObject({ long: true });
  });

  it('acknowledges only findings that really occur at or below the acknowledging construct', () => {
    const findings = new UnacknowledgedChecks().validateScope(built.app).violations.flatMap((v) => v.violatingResources.map((r) => ({ id: v.ruleName, path: r.constructPath ?? '' })));
    for (const ack of acknowledgementsOf(built.app).filter((a) => a.id.startsWith('AwsSolutions-'))) {
      const answered = findings.filter((f) => f.id === ack.id && (f.path === ack.path || f.path.startsWith(`${ack.path}/`)));
      expect({ ack: `${ack.id} at ${ack.path}`, answered: answered.length > 0 }).toEqual({ ack: `${ack.id} at ${ack.path}`, answered: true });
    }
  });
});

describe('validation plugins', () => {
  /** The plugins a synth of buildApp(app, options) reports on. */
  const pluginsReported = (options?: Parameters<typeof buildApp>[1]): string[] => {
    const app = freshApp({ env: 'test', 'aws:cdk:bundling-stacks': [] });
    buildApp(app, options);
    const report = JSON.parse(readFileSync(join(app.synth().directory, 'validation-report.json'), 'utf8')) as { pluginReports: { pluginName: string }[] };
    return report.pluginReports.map((r) => r.pluginName);
  };

  it('run cfn-guard on every synth unless a test turns it off', () => {
    expect(pluginsReported()).toContain('cdk-validator-cfnguard');
    expect(pluginsReported({ guardRules: false })).not.toContain('cdk-validator-cfnguard');
  });
});

describe('cdk-nag plugin', () => {
  it('fails the synth on a finding nobody acknowledged', () => {
    const app = freshApp({ env: 'test', 'aws:cdk:bundling-stacks': [] });
    const { data } = buildApp(app);
    new Secret(data, 'UnrotatedSecret');
    expect(() => app.synth()).toThrow(/AwsSolutions-SMG4/);
  });
});
