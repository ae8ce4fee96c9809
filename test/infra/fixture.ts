import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, NestedStack, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { buildApp, type WfmStacks } from '../../lib/app';
import { cdkJsonContext } from '../../lib/paths';
import { PUBLIC_ROUTES } from '../../services/routes';

/**
 * The app as `cdk synth -c env=<env>` builds it: cdk.json's feature flags, the chosen
 * environment, the cdk-nag plugin. Each test file synthesizes once per context and shares the
 * result (memoized). Two costly parts run only for the tests that need them, as neither changes
 * a template (but for the code's asset hash): bundling every function (esbuild, ~100 MB of
 * assembly; `bundled`, for the tests that read the bundles) and the cfn-guard plugin (~10 s a
 * synth; `guardRules`, for the test of the synth's validation report).
 */
export interface SynthOptions {
  readonly bundled?: boolean;
  readonly guardRules?: boolean;
}
export interface SynthesizedApp extends WfmStacks {
  readonly app: App;
  readonly assembly: CloudAssembly;
  readonly dataTemplate: Template;
  readonly apiTemplate: Template;
}

const cache = new Map<string, SynthesizedApp>();

/**
 * Where this test file's apps write their cloud assemblies. A bundled synth writes every
 * function's bundle and source maps (~100 MB); left in the OS temp folder by every run, they
 * filled a machine's disk. Each app gets its own folder under one per-file folder, removed when
 * the file's tests end (jest evaluates this module once per test file).
 */
let fileOutdir: string | undefined;
const outdir = (): string => {
  fileOutdir ??= mkdtempSync(join(tmpdir(), 'wfm-synth-'));
  return mkdtempSync(join(fileOutdir, 'app-'));
};
afterAll(() => {
  if (fileOutdir) rmSync(fileOutdir, { recursive: true, force: true });
  fileOutdir = undefined;
});

export function synthesize(context: Record<string, unknown> = {}, { bundled = false, guardRules = false }: SynthOptions = {}): SynthesizedApp {
  const full = bundled ? context : { 'aws:cdk:bundling-stacks': [], ...context };
  const key = JSON.stringify([full, guardRules]);
  const cached = cache.get(key);
  if (cached) return cached;
  const app = freshApp(full);
  const stacks = buildApp(app, { guardRules });
  const assembly = app.synth();
  const result: SynthesizedApp = {
    ...stacks,
    app,
    assembly,
    dataTemplate: Template.fromStack(stacks.data),
    apiTemplate: Template.fromJSON(flattenNested(stacks.api)),
  };
  cache.set(key, result);
  return result;
}

/** A bare app with cdk.json's feature flags (no nag plugin), for tests of one stack or construct. */
export function freshApp(context: Record<string, unknown> = {}): App {
  return new App({ outdir: outdir(), context: { ...cdkJsonContext(), ...context } });
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

/** A method of the route table's public routes (PUBLIC_ROUTES: the API reference, without a key). */
export const isPublicRouteMethod = (method: MethodInfo): boolean =>
  !['MOCK', 'HTTP_PROXY'].includes(method.properties.Integration?.Type) && PUBLIC_ROUTES.some((r) => r.method === method.httpMethod && r.path === method.path);

/** Methods built from ROUTES: not the 405 mocks, not the HTTP forward, not the public routes. */
export const isRouteMethod = (method: MethodInfo): boolean => !['MOCK', 'HTTP_PROXY'].includes(method.properties.Integration?.Type) && !isPublicRouteMethod(method);

/**
 * The logical id of a construct's CFN resource as `apiTemplate` names it: its id in its stack,
 * prefixed by `<nested stack's id in its parent>.` for each nested stack between it and `stack`.
 */
export function logicalId(stack: Stack, cfnElement: unknown): string {
  const element = cfnElement as CfnElement;
  let owner = Stack.of(element);
  let id = owner.getLogicalId(element);
  while (owner !== stack) {
    if (!(owner instanceof NestedStack) || !owner.nestedStackParent) throw new Error(`${element.node.path} is not in ${stack.node.path}.`);
    id = `${owner.nestedStackParent.getLogicalId(owner.nestedStackResource!)}.${id}`;
    owner = owner.nestedStackParent;
  }
  return id;
}

type Json = unknown;

/**
 * One template for a stack and its nested stacks, as if they were one: each nested stack's
 * resources are merged in under `<nested stack id>.<logical id>`, its parameters replaced by
 * what the parent passes, and the parent's references to its outputs by the output values.
 * Tests then check the whole API (routes, authorizers, IAM) wherever a resource lives.
 */
export function flattenNested(stack: Stack): Record<string, any> {
  const template = JSON.parse(JSON.stringify(Template.fromStack(stack).toJSON())) as { Resources: Record<string, any>; Outputs?: Record<string, any> };
  const nestedStacks = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack && c.nestedStackParent === stack);
  const outputs = new Map<string, Json>();
  for (const nested of nestedStacks) {
    const nestedId = stack.getLogicalId(nested.nestedStackResource!);
    const child = flattenNested(nested) as { Resources: Record<string, any>; Outputs?: Record<string, { Value: Json }>; Parameters?: Record<string, unknown> };
    const passed = (template.Resources[nestedId].Properties?.Parameters ?? {}) as Record<string, Json>;
    const rewrite = (value: Json): Json => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const v = value as Record<string, Json>;
      if (typeof v.Ref === 'string' && Object.keys(v).length === 1) {
        if (v.Ref in passed) return passed[v.Ref];
        if (v.Ref in child.Resources) return { Ref: `${nestedId}.${v.Ref}` };
        return v;
      }
      if (Array.isArray(v['Fn::GetAtt']) && Object.keys(v).length === 1) {
        const [target, attribute] = v['Fn::GetAtt'] as [string, string];
        if (target in child.Resources) return { 'Fn::GetAtt': [`${nestedId}.${target}`, attribute] };
      }
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, rewrite(inner)]));
    };
    for (const [id, resource] of Object.entries(child.Resources)) template.Resources[`${nestedId}.${id}`] = rewrite(resource);
    for (const [name, output] of Object.entries(child.Outputs ?? {})) outputs.set(`${nestedId}.Outputs.${name}`, rewrite(output.Value));
  }
  const resolveOutputs = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolveOutputs);
    if (value === null || typeof value !== 'object') return value;
    const v = value as Record<string, Json>;
    if (Array.isArray(v['Fn::GetAtt']) && Object.keys(v).length === 1) {
      const [target, attribute] = v['Fn::GetAtt'] as [string, string];
      const output = outputs.get(`${target}.${attribute}`);
      if (output !== undefined) return resolveOutputs(output);
    }
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, resolveOutputs(inner)]));
  };
  return resolveOutputs(template) as Record<string, any>;
}
