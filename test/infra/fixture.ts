import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { buildApp, type WfmStacks } from '../../lib/app';
import { cdkJsonContext } from '../../lib/paths';

/**
 * The app as `cdk synth -c env=<env>` builds it: cdk.json's feature flags, the chosen
 * environment, the cdk-nag plugin. Synthesizing bundles six functions with esbuild, so each
 * test file synthesizes once per environment and shares the result (memoized per context).
 */
export interface SynthesizedApp extends WfmStacks {
  readonly app: App;
  readonly assembly: CloudAssembly;
  readonly dataTemplate: Template;
  readonly apiTemplate: Template;
}

const cache = new Map<string, SynthesizedApp>();

export function synthesize(context: Record<string, unknown> = {}): SynthesizedApp {
  const key = JSON.stringify(context);
  const cached = cache.get(key);
  if (cached) return cached;
  const app = new App({ context: { ...cdkJsonContext(), ...context } });
  const stacks = buildApp(app);
  const assembly = app.synth();
  const result: SynthesizedApp = {
    ...stacks,
    app,
    assembly,
    dataTemplate: Template.fromStack(stacks.data),
    apiTemplate: Template.fromStack(stacks.api),
  };
  cache.set(key, result);
  return result;
}

/** A bare app with cdk.json's feature flags (no nag plugin), for tests of one stack or construct. */
export function freshApp(context: Record<string, unknown> = {}): App {
  return new App({ context: { ...cdkJsonContext(), ...context } });
}

/** A fresh Stack in a fresh app, for tests of one construct. */
export const freshStack = (context: Record<string, unknown> = {}): Stack => new Stack(freshApp(context), 'Subject');

export type Resources = Record<string, { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;

/** Resources of one type, keyed by logical id. */
export function resourcesOf(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** `{ Ref: X }` or `{ 'Fn::GetAtt': [X, ...] }` → X. */
export function logicalIdOf(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    if (v.Ref) return v.Ref;
    if (v['Fn::GetAtt']) return v['Fn::GetAtt'][0];
  }
  return undefined;
}

/**
 * The full path of each AWS::ApiGateway::Resource, rebuilt from PathPart/ParentId chains
 * (the root resource is `GetAtt <RestApi>.RootResourceId`).
 */
export function resourcePaths(template: Template): Map<string, string> {
  const resources = resourcesOf(template, 'AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const props = resources[id].Properties ?? {};
    const parent = props.ParentId as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    const parentPath = parent['Fn::GetAtt']?.[1] === 'RootResourceId' ? '' : pathOf(logicalIdOf(parent) as string);
    const path = `${parentPath}/${props.PathPart as string}`;
    paths.set(id, path);
    return path;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

export interface MethodInfo {
  readonly logicalId: string;
  readonly restApi: string;
  readonly httpMethod: string;
  readonly path: string;
  readonly properties: Record<string, any>;
}

/** Every AWS::ApiGateway::Method with its RestApi and full resource path. */
export function methodsOf(template: Template): MethodInfo[] {
  const paths = resourcePaths(template);
  return Object.entries(resourcesOf(template, 'AWS::ApiGateway::Method')).map(([logicalId, resource]) => {
    const props = resource.Properties ?? {};
    const resourceId = props.ResourceId as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    const path = resourceId['Fn::GetAtt']?.[1] === 'RootResourceId' ? '/' : (paths.get(logicalIdOf(resourceId) as string) as string);
    return { logicalId, restApi: logicalIdOf(props.RestApiId) as string, httpMethod: props.HttpMethod as string, path, properties: props };
  });
}

/** Methods built from ROUTES: not the 405 mocks, not the HTTP forward. */
export const isRouteMethod = (method: MethodInfo): boolean => !['MOCK', 'HTTP_PROXY'].includes(method.properties.Integration?.Type);

/** The logical id of a construct's CFN resource in its stack. */
export function logicalId(stack: Stack, cfnElement: unknown): string {
  return stack.getLogicalId(cfnElement as Parameters<Stack['getLogicalId']>[0]);
}
