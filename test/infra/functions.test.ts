import { existsSync, readFileSync } from 'node:fs';
import { assetCode, ESM_REQUIRE_BANNER, staticClosure, UNREACHED_CREDENTIAL_PROVIDERS } from '../../lib/constructs/bundling';
import { FUNCTION_TIMEOUT } from '../../lib/stacks/api-stack';
import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { FUNCTION_NAMES, FUNCTION_PERMISSIONS, dynamoDbAction, secretStoreActions, type FunctionName } from '../../lib/permissions';
import { fromRoot, handlerEntry } from '../../lib/paths';
import { AREAS, FUNCTIONS } from '../../services/registry';
import { TABLE_SPEC } from '../../services/shared/ddb/table-spec';
import { logicalId, logicalIdOf, resourcesOf, synthesize, type SynthesizedApp } from './fixture';

const testEnv = synthesize({ env: 'test' }, { bundled: true });

interface Statement {
  readonly Action: string | string[];
  readonly Effect: string;
  readonly Resource: unknown;
}

const functionId = (built: SynthesizedApp, name: FunctionName): string => logicalId(built.api, built.api.functions[name].node.defaultChild);
const functionProps = (built: SynthesizedApp, name: FunctionName): Record<string, any> =>
  resourcesOf(built.apiTemplate, 'AWS::Lambda::Function')[functionId(built, name)].Properties ?? {};

/** Every statement of every policy attached to the function's role. */
function statementsOf(built: SynthesizedApp, name: FunctionName): Statement[] {
  const roleId = logicalIdOf(functionProps(built, name).Role) as string;
  return Object.values(resourcesOf(built.apiTemplate, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties?.Roles as unknown[]).some((role) => logicalIdOf(role) === roleId))
    .flatMap((policy) => policy.Properties?.PolicyDocument.Statement as Statement[]);
}

const actionsOf = (statements: Statement[], prefix: string): string[] =>
  [...new Set(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).filter((a) => a.startsWith(prefix)))].sort();

/** What X-Ray active tracing needs, and what CDK grants for it: writing segments, nothing else of X-Ray. */
it.each(FUNCTION_NAMES)('lets %s write X-Ray segments and nothing more of X-Ray', (name) => {
  expect(actionsOf(statementsOf(testEnv, name), 'xray:')).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
});

const dataOutput = (built: SynthesizedApp, cfn: unknown) => logicalId(built.data as Stack, cfn);

describe('functions', () => {
  it.each(FUNCTION_NAMES)('runs %s on nodejs22.x, arm64, with X-Ray active tracing', (name) => {
    expect(functionProps(testEnv, name)).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      MemorySize: 1024,
      // API functions answer within API Gateway's integration timeout; the report worker runs longer.
      Timeout: FUNCTION_TIMEOUT[name]?.toSeconds() ?? 10,
      Handler: 'index.handler',
    });
  });

  it.each(FUNCTION_NAMES)('gives %s Powertools settings, no source-map parsing at cold start and its own log group with retention', (name) => {
    const props = functionProps(testEnv, name);
    expect(props.Environment.Variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: `wfm-${name}`,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_NAMESPACE: 'WFM',
      POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
      API_ENVIRONMENT: 'TEST',
    });
    // Source maps are not parsed at cold start (~15 ms): they stay in the asset for npm run symbolicate.
    expect(props.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    // Metrics always; SDK-level tracing only with -c sdkTracing=true (test/infra/tracer-layer.test.ts).
    expect(props.Environment.Variables.POWERTOOLS_METRICS_DISABLED).toBeUndefined();
    expect(props.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    expect(props.Layers).toBeUndefined();
    const logGroup = resourcesOf(testEnv.apiTemplate, 'AWS::Logs::LogGroup')[logicalIdOf(props.LoggingConfig.LogGroup) as string];
    expect(logGroup.Properties?.RetentionInDays).toBe(30);
  });

  it('bundles each handler into an ESM entry and its chunks, each with a source map and a require() shim, the AWS SDK inside', () => {
    for (const name of FUNCTION_NAMES) {
      const asset = assetDirOf(name);
      expect(existsSync(join(asset, 'index.mjs.map'))).toBe(true);
      for (const file of staticClosure(join(asset, 'index.mjs')).files) {
        const code = readFileSync(file, 'utf8');
        expect({ file, banner: code.startsWith(ESM_REQUIRE_BANNER) }).toEqual({ file, banner: true });
        expect(existsSync(`${file}.map`)).toBe(true);
      }
      const code = assetCode(asset);
      expect(code).not.toMatch(/from\s*"@aws-sdk\//);
      // The Tracer and the X-Ray SDK stay out of every bundle: the tracer layer serves them.
      expect(code).not.toContain('AWS_XRAY_DAEMON_ADDRESS');
    }
  });

  it('keeps the clients only some routes need out of what a cold start reads: S3, SQS, KMS and Secrets Manager load on first use (issue 18)', () => {
    // Each client names its base exception in its own chunk; none is in the entry's static imports.
    const lazy = { documents: 'S3ServiceException', reports: 'SQSServiceException', employees: 'KMSServiceException', materials: 'SecretsManagerServiceException' } as const;
    for (const [name, marker] of Object.entries(lazy)) {
      const asset = assetDirOf(name as FunctionName);
      const coldStart = staticClosure(join(asset, 'index.mjs')).files.map((f) => readFileSync(f, 'utf8')).join('\n');
      expect({ name, inAsset: assetCode(asset).includes(marker), atColdStart: coldStart.includes(marker) }).toEqual({ name, inAsset: true, atColdStart: false });
    }
  });

  it('leaves out of every bundle the credential providers Lambda never reaches, still loaded by dynamic import only', () => {
    const withChain: string[] = [];
    for (const name of FUNCTION_NAMES) {
      const code = assetCode(assetDirOf(name));
      // A bundle with an SDK client has the default chain; its own import() calls stay,
      // unresolved, behind fromEnv (area-function.ts). The openapi function has no client.
      if (code.includes('defaultProvider::fromEnv')) {
        withChain.push(name);
        for (const provider of UNREACHED_CREDENTIAL_PROVIDERS) expect({ name, provider, dynamicImport: code.includes(`import("${provider}")`) }).toEqual({ name, provider, dynamicImport: true });
      }
      // The STS and SSO clients they would bring (@aws-sdk/nested-clients) are not in the bundle.
      expect({ name, nestedClients: /AssumeRoleWithWebIdentity|GetRoleCredentials/.test(code) }).toEqual({ name, nestedClients: false });
    }
    expect(withChain).toEqual(expect.arrayContaining(['authorizer', 'timesheets', 'reports-worker']));
  });

  it('takes each entry from the registry, and an area\'s from services/<area>/handler.ts, the module the local gateway loads', () => {
    for (const fn of FUNCTIONS) expect(existsSync(fromRoot(handlerEntry(fn)))).toBe(true);
    for (const area of AREAS) expect(handlerEntry(area)).toBe(`services/${area.name}/handler.ts`);
  });
});

describe('least privilege', () => {
  it.each(FUNCTION_NAMES)('grants %s exactly the DynamoDB actions of lib/permissions.ts, on the table and each index', (name) => {
    const statements = statementsOf(testEnv, name);
    expect(actionsOf(statements, 'dynamodb:')).toEqual(FUNCTION_PERMISSIONS[name].table.map(dynamoDbAction).sort());
    const dynamo = statements.filter((s) => actionsOf([s], 'dynamodb:').length > 0);
    // A function that reads no table (the API reference) has no statement on it at all.
    if (FUNCTION_PERMISSIONS[name].table.length === 0) return expect(dynamo).toEqual([]);
    const tableArn = JSON.stringify(dynamo[0].Resource);
    for (const index of TABLE_SPEC.globalSecondaryIndexes) expect(tableArn).toContain(`/index/${index.indexName}"`);
    expect(tableArn).not.toContain('index/*');
  });

  it.each(FUNCTION_NAMES)('never grants %s a DynamoDB wildcard, Scan or a managed policy', (name) => {
    const actions = actionsOf(statementsOf(testEnv, name), '');
    expect(actions.filter((a) => a.includes('*') || a === 'dynamodb:Scan')).toEqual([]);
    const role = resourcesOf(testEnv.apiTemplate, 'AWS::IAM::Role')[logicalIdOf(functionProps(testEnv, name).Role) as string];
    expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
  });

  it.each(FUNCTION_NAMES)('lets %s read the cursor secret and seal restricted data only as listed', (name) => {
    const statements = statementsOf(testEnv, name);
    const { cursorSecret, restrictedDataKey, restrictedDataDecrypt } = FUNCTION_PERMISSIONS[name];
    const secretStore = secretStoreActions(FUNCTION_PERMISSIONS[name].integrationSecrets ?? []);
    expect(actionsOf(statements, 'secretsmanager:')).toEqual([...new Set([...(cursorSecret ? ['secretsmanager:GetSecretValue'] : []), ...secretStore])].sort());
    expect('SECRET_STORE_PREFIX' in functionProps(testEnv, name).Environment.Variables).toBe(secretStore.length > 0);
    expect(actionsOf(statements, 'kms:')).toEqual(restrictedDataKey ? (restrictedDataDecrypt ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:GenerateDataKey']) : []);
    const env = functionProps(testEnv, name).Environment.Variables;
    expect('CURSOR_SECRET_ARN' in env).toBe(cursorSecret);
    expect('RESTRICTED_DATA_KEY_ID' in env).toBe(restrictedDataKey);
    // Each seal carries its purpose as the KMS encryption context; only the bank account is ever decrypted (issue 12, item 7).
    const kmsCondition = (action: string) => (statements.find((s) => actionsOf([s], action).length > 0) as Statement & { Condition?: unknown } | undefined)?.Condition;
    if (restrictedDataKey) expect(kmsCondition('kms:GenerateDataKey')).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': ['evidence', 'bank-account'] } });
    if (restrictedDataDecrypt) expect(kmsCondition('kms:Decrypt')).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': ['bank-account'] } });
    if (cursorSecret) {
      const secretStatement = statements.find((s) => actionsOf([s], 'secretsmanager:').length > 0 && !JSON.stringify(s.Resource).includes('integrations/*')) as Statement;
      expect(JSON.stringify(secretStatement.Resource)).toContain(dataOutput(testEnv, testEnv.data.cursorSecret.node.defaultChild));
    }
  });

  it('lets every area with an Idempotency-Key route read the cursor secret and keep the key\'s record', () => {
    // The kit binds an Idempotency-Key to an HMAC of the request keyed from the cursor secret
    // (shared/http/idempotent.ts): without the secret every such write fails in AWS (locally
    // CURSOR_SECRET hides it). The record is locked (PutItem), read on a replay (GetItem),
    // completed in the change's transaction (PutItem) and released after a failure (DeleteItem).
    for (const area of AREAS.filter((a) => Object.values(a.routes).some((r) => r.idempotencyKey !== undefined))) {
      const statements = statementsOf(testEnv, area.name);
      expect([area.name, actionsOf(statements, 'secretsmanager:').includes('secretsmanager:GetSecretValue')]).toEqual([area.name, true]);
      expect([area.name, 'CURSOR_SECRET_ARN' in functionProps(testEnv, area.name).Environment.Variables]).toEqual([area.name, true]);
      expect(actionsOf(statements, 'dynamodb:')).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
    }
  });

  it('keeps wildcard resources to the X-Ray statement, the export files prefix and the documents prefixes', () => {
    // The reports function reads, and the worker writes, objects under reports/ only; the
    // documents function works on uploads/ and documents/ of its bucket as its row lists.
    const objectGrants: Partial<Record<string, string[][]>> = {
      reports: [['s3:GetObject']],
      'reports-worker': [['s3:PutObject']],
      // The payroll dispatch reads the export file it delivers.
      'integrations-worker': [['s3:GetObject']],
      // Grants of the same actions on both prefixes are merged into one statement (minimizePolicies).
      ...Object.fromEntries(FUNCTION_NAMES.filter((n) => FUNCTION_PERMISSIONS[n].documentsBucket).map((n) => [n, [...new Set(FUNCTION_PERMISSIONS[n].documentsBucket!.map((g) => [...g.actions].sort().join(' ')))].map((a) => a.split(' '))])),
    };
    for (const name of FUNCTION_NAMES) {
      const wildcards = statementsOf(testEnv, name).filter((s) => JSON.stringify(s.Resource).includes('*'));
      // Provider credentials: one secret per integration under wfm/<env>/integrations/.
      const secretStore = secretStoreActions(FUNCTION_PERMISSIONS[name].integrationSecrets ?? []);
      const expected = [['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], ...(objectGrants[name] ?? []), ...(secretStore.length > 0 ? [secretStore] : [])];
      const byText = (a: string[], b: string[]) => a.join().localeCompare(b.join());
      expect(wildcards.map((s) => actionsOf([s], '')).sort(byText)).toEqual(expected.sort(byText));
      for (const s of wildcards.filter((w) => actionsOf([w], 'secretsmanager:').length > 0)) expect(JSON.stringify(s.Resource)).toMatch(/secret:wfm\/test\/integrations\/\*"/);
      for (const s of wildcards.filter((w) => actionsOf([w], 's3:').length > 0)) expect(JSON.stringify(s.Resource)).toMatch(/reports-.*\/reports\/\*"|documents-.*\/(uploads|documents)\/\*"/);
    }
  });

  it('lets a function that reads objects list its bucket under that prefix only, so that a missing key is 404, not 403', () => {
    const readers = FUNCTION_NAMES.flatMap((name) => {
      const p = FUNCTION_PERMISSIONS[name];
      return [...(p.documentsBucket ?? []), ...(p.reportsBucket ?? [])].filter((g) => g.actions.includes('s3:GetObject')).map((g) => [name, g.prefix] as const);
    });
    expect(readers.length).toBeGreaterThanOrEqual(4);
    for (const [name, prefix] of readers) {
      const listing = statementsOf(testEnv, name).filter((s) => actionsOf([s], 's3:ListBucket').length > 0) as (Statement & { Condition?: unknown })[];
      // On the bucket itself (no object path), and only for keys under the prefix.
      const limited = listing.filter((s) => !JSON.stringify(s.Resource).includes('/') && Object.keys(s.Condition ?? {}).join() === 'StringLike');
      expect([name, limited.some((s) => (s.Condition as { StringLike: { 's3:prefix': string[] } }).StringLike['s3:prefix'].includes(`${prefix}*`))]).toEqual([name, true]);
      expect([name, listing.length]).toEqual([name, limited.length]);
    }
    // A function that only writes objects lists nothing.
    expect(statementsOf(testEnv, 'reports-worker').filter((s) => actionsOf([s], 's3:ListBucket').length > 0)).toEqual([]);
  });

  it('wires no function to an API that the route table does not name', () => {
    const permissions = Object.values(resourcesOf(testEnv.apiTemplate, 'AWS::Lambda::Permission'));
    const invoked = new Set(permissions.map((p) => logicalIdOf(p.Properties?.FunctionName)));
    expect(invoked.has(functionId(testEnv, 'evidence-ingest'))).toBe(false);
    for (const area of AREAS) expect(invoked.has(functionId(testEnv, area.name))).toBe(true);
  });
});

describe('environment separation', () => {
  const live = synthesize({ env: 'live' }, { bundled: true });

  it('tells the TEST authorizer to accept TEST keys and the LIVE authorizer LIVE keys', () => {
    expect(functionProps(testEnv, 'authorizer').Environment.Variables.API_ENVIRONMENT).toBe('TEST');
    expect(functionProps(live, 'authorizer').Environment.Variables.API_ENVIRONMENT).toBe('LIVE');
  });

  it('names the stacks per environment and protects LIVE from termination', () => {
    expect([testEnv.data.stackName, testEnv.api.stackName]).toEqual(['WfmTestData', 'WfmTestApi']);
    expect([live.data.stackName, live.api.stackName]).toEqual(['WfmLiveData', 'WfmLiveApi']);
    expect([testEnv.data.terminationProtection, testEnv.api.terminationProtection]).toEqual([false, false]);
    expect([live.data.terminationProtection, live.api.terminationProtection]).toEqual([true, true]);
  });

  it('keeps LIVE logs for a year and retains them', () => {
    const logGroup = resourcesOf(live.apiTemplate, 'AWS::Logs::LogGroup')[logicalIdOf(functionProps(live, 'timesheets').LoggingConfig.LogGroup) as string];
    expect(logGroup).toMatchObject({ DeletionPolicy: 'RetainExceptOnCreate', Properties: { RetentionInDays: 365 } });
  });
});

/** The asset folder of a function's bundle in the cloud assembly. */
function assetDirOf(name: FunctionName): string {
  const code = functionProps(testEnv, name).Code;
  const hash = String(code.S3Key).replace(/\.zip$/, '');
  return join(testEnv.assembly.directory, `asset.${hash}`);
}
