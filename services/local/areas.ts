import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Area } from '../routes';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * The handler module of each area: the same `services/<area>/handler.ts` entry files that the
 * CDK stack bundles (lib/constructs/area-function.ts builds the same path from the area name).
 */
export const AREA_HANDLERS: Readonly<Record<Area, () => Promise<ProxyHandler>>> = {
  'work-events': async () => (await import('../work-events/handler')).handler as unknown as ProxyHandler,
  timesheets: async () => (await import('../timesheets/handler')).handler as unknown as ProxyHandler,
  audit: async () => (await import('../audit/handler')).handler as unknown as ProxyHandler,
  scim: async () => (await import('../scim/handler')).handler as unknown as ProxyHandler,
  organization: async () => (await import('../organization/handler')).handler as unknown as ProxyHandler,
  employees: async () => (await import('../employees/handler')).handler as unknown as ProxyHandler,
  locations: async () => (await import('../locations/handler')).handler as unknown as ProxyHandler,
  materials: async () => (await import('../materials/handler')).handler as unknown as ProxyHandler,
  reports: async () => (await import('../reports/handler')).handler as unknown as ProxyHandler,
};

export const handlerEntry = (area: Area): string => `services/${area}/handler.ts`;
