import { ROUTES, resourcePath, routeKey } from '../../services/routes';
import { matchPath } from '../../services/local/gateway';
import { isRouteMethod, methodsOf, synthesize } from './fixture';

/**
 * The deployed APIs and the local gateway serve the same route table: the methods of both
 * synthesized RestApis (paths rebuilt from the Resource PathPart/ParentId chains) are exactly
 * ROUTES, which is what services/local/gateway.ts matches against.
 */
const { apiTemplate } = synthesize({ env: 'test' });
const deployed = methodsOf(apiTemplate).filter(isRouteMethod);

describe('route table parity', () => {
  it('deploys exactly the routes of services/routes.ts across the public and SCIM RestApis', () => {
    const expected = ROUTES.map((route) => routeKey(route.method, resourcePath(route))).sort();
    const actual = deployed.map((method) => routeKey(method.httpMethod, method.path)).sort();
    expect(actual).toEqual(expected);
  });

  it('deploys no route twice', () => {
    const keys = deployed.map((method) => routeKey(method.httpMethod, method.path));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('puts each route on the RestApi its `api` names', () => {
    const restApiOfPath = new Map(deployed.map((m) => [routeKey(m.httpMethod, m.path), m.restApi]));
    const byApi = new Map<string, Set<string | undefined>>();
    for (const route of ROUTES) {
      const set = byApi.get(route.api) ?? new Set();
      set.add(restApiOfPath.get(routeKey(route.method, resourcePath(route))));
      byApi.set(route.api, set);
    }
    expect([...byApi.values()].map((s) => s.size)).toEqual([1, 1]);
    expect(new Set([...byApi.values()].map((s) => [...s][0])).size).toBe(2);
  });

  it('matches every deployed path in the local gateway', () => {
    for (const method of deployed) {
      const concrete = method.path.replace(/\{[^}]+\}/g, 'x1');
      expect(matchPath(concrete).map((m) => m.route.resource)).toContain(method.path);
    }
  });
});
