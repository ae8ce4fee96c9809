import { NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app';
import { AREAS } from '../../services/registry';
import { defineArea, type AreaDefinition, type RouteContract } from '../../services/shared/area';
import { READ_WRITE } from '../../services/shared/permissions';
import { freshApp } from './fixture';

/**
 * The stacks fit the whole catalogue: the registry plus synthetic areas up to ~160 routes (the
 * catalogue's size, with some under an existing collection), synthesized as `cdk synth` does
 * (cdk-nag included, bundling skipped), keep every stack and nested stack under 400 of
 * CloudFormation's 500 resources.
 */
const HEADROOM = 400;

function syntheticArea(index: number): AreaDefinition {
  const name = `synthetic-${index}`;
  const base = `/synthetic${index}`;
  const ok = { status: 200, description: 'ok' };
  const route = (method: RouteContract['method'], path: string): RouteContract => ({ method, path, scopes: ['planning:read'], summary: 's', description: 'd', success: ok, problems: [] });
  const area = defineArea({
    name,
    api: 'public',
    description: `Synthetic area ${index}`,
    permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
    auditEntityTypes: [],
    schemas: {},
    routes: {
      list: route('GET', base),
      create: route('POST', base),
      get: route('GET', `${base}/{id}`),
      update: route('PATCH', `${base}/{id}`),
      archive: route('DELETE', `${base}/{id}`),
      publish: route('POST', `${base}/{id}/publish`),
      listItems: route('GET', `${base}/{id}/items`),
      addItem: route('POST', `${base}/{id}/items`),
      updateItem: route('PATCH', `${base}/{id}/items/{itemId}`),
      removeItem: route('DELETE', `${base}/{id}/items/{itemId}`),
      // Under another area's collection, as location tasks or documents will be.
      listForLocation: route('GET', `/locations/{locationId}/synthetic${index}`),
    },
  });
  // Bundling is skipped, but the entry file must exist: any handler will do.
  return Object.assign(area, { entry: 'services/materials/handler.ts' });
}

describe('stack size', () => {
  const areas = [...AREAS, ...Array.from({ length: 10 }, (_, i) => syntheticArea(i))];
  const app = freshApp({ 'aws:cdk:bundling-stacks': [] });
  const { api, data } = buildApp(app, { areas, guardRules: false });
  app.synth();
  const stacks: Stack[] = [data, api, ...api.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)];
  const countOf = (stack: Stack) => Object.keys(Template.fromStack(stack).toJSON().Resources ?? {}).length;

  it(`keeps every stack under ${HEADROOM} resources with the catalogue's number of routes`, () => {
    const routes = areas.reduce((n, a) => n + Object.keys(a.routes).length, 0);
    expect(routes).toBeGreaterThanOrEqual(160);
    const counts = Object.fromEntries(stacks.map((s) => [s.node.path, countOf(s)]));
    for (const [path, count] of Object.entries(counts)) expect({ path, under: count < HEADROOM }).toEqual({ path, under: true });
    console.log(`[scale] ${routes} routes: ${JSON.stringify(counts)}`);
  });
});
