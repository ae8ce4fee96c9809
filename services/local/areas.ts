import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * The handler module of an area, loaded when its first request arrives: the same
 * `services/<area>/handler.ts` entry the CDK stack bundles (handlerEntry in shared/area.ts).
 */
export async function loadAreaHandler(area: string): Promise<ProxyHandler> {
  if (!/^[a-z][a-z0-9-]*$/.test(area)) throw new Error(`Not an area name: ${area}`);
  const module = (await import(`../${area}/handler`)) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`services/${area}/handler.ts exports no handler.`);
  return module.handler as ProxyHandler;
}
