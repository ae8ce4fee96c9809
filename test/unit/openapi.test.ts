import { readFileSync } from 'node:fs';
import { openApiDocument } from '../../services/openapi/document';
import { ROUTES, resourcePath } from '../../services/routes';

describe('OpenAPI document', () => {
  const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };

  it('is the committed docs/openapi.json (run `npm run openapi` after changing routes or schemas)', () => {
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8'))).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('describes every route of the route table with its success and problem responses', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      const op = doc.paths[resourcePath(route)]?.[route.method.toLowerCase()];
      expect(op).toBeDefined();
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
  });
});
