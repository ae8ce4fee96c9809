import { Tags, Validations, type App } from 'aws-cdk-lib';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { AreaDefinition } from '../services/shared/area';
import { environmentFromContext, type EnvironmentConfig } from './environments';
import { ApiStack } from './stacks/api-stack';
import { DataStack, documentsCorsOriginsFromContext } from './stacks/data-stack';

export interface WfmStacks {
  readonly environment: EnvironmentConfig;
  readonly data: DataStack;
  readonly api: ApiStack;
}

/**
 * Adds the stacks of the environment chosen by context (`-c env=test|live`, default test) to
 * `app` and attaches cdk-nag's AWS Solutions checks: any unacknowledged finding fails the
 * synth (report in cdk.out/validation-report.json). Stacks are environment-agnostic, so
 * `cdk synth` needs no AWS account.
 */
export const PROJECT_TAG = 'wfm-organization-api';

export interface BuildOptions {
  /**
   * The areas to deploy.
   * @default AREAS - the registry's
   */
  readonly areas?: readonly AreaDefinition[];
  /**
   * Run the AWS Control Tower proactive controls (cfn-guard) on the synth, beside cdk-nag.
   * They take most of a synth's time (~10 s of ~11 s); tests that only read templates turn
   * them off, and test/infra/nag.test.ts keeps them, as every `cdk synth` does.
   * @default true
   */
  readonly guardRules?: boolean;
}

export function buildApp(app: App, options: BuildOptions = {}): WfmStacks {
  const environment = environmentFromContext(app.node);
  // Stack tags: CloudFormation puts them on the stacks and on every resource it can tag,
  // nested stacks included (cost allocation, ownership, environment).
  const tags = { project: PROJECT_TAG, environment: environment.name };
  const common = {
    apiEnvironment: environment.apiEnvironment,
    terminationProtection: environment.terminationProtection,
    tags,
  };
  const data = new DataStack(app, `${environment.stackPrefix}Data`, {
    ...common,
    description: `WFM organization API, ${environment.apiEnvironment}: table, restricted-data key, cursor secret (stateful)`,
    retainData: environment.retainData,
    documentsCorsOrigins: documentsCorsOriginsFromContext(app.node),
  });
  const api = new ApiStack(app, `${environment.stackPrefix}Api`, {
    ...common,
    description: `WFM organization API, ${environment.apiEnvironment}: functions, public and SCIM REST APIs (no business data; LIVE retains its log groups)`,
    table: data.table,
    cursorSecret: data.cursorSecret,
    restrictedDataKey: data.restrictedDataKey,
    logRetention: environment.logRetention,
    retainLogs: environment.retainLogs,
    domainName: environment.domainName,
    certificateArn: environment.certificateArn,
    hostedZoneId: environment.hostedZoneId,
    hostedZoneName: environment.hostedZoneName,
    areas: options.areas,
    alarmTopicArn: environment.alarmTopicArn,
    manageApiGatewayAccount: environment.manageApiGatewayAccount,
    evidenceInvokerArn: environment.evidenceInvokerArn,
  });
  for (const [key, value] of Object.entries(tags)) Tags.of(app).add(key, value);
  // Beside cdk-nag, the AWS Control Tower proactive controls (cfn-guard rules) on every synth.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), ...(options.guardRules === false ? [] : [new CfnGuardValidator({ maxBuffer: 64 * 1024 * 1024 })]));
  return { environment, data, api };
}
