import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { openApiDocument } from '../../services/openapi/document';
import { ROUTES, resourcePath } from '../../services/routes';

describe('OpenAPI document', () => {
  const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };

  it('is the committed docs/openapi.json (run `npm run openapi` after changing routes or schemas)', () => {
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8'))).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('is, with the typed client (clients/typescript), what `npm run openapi` generates: run it and commit the result', () => {
    // The generator (openapi-typescript) is ESM inside: run the real check, as CI would.
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'services/openapi/write.ts', '--check'], { encoding: 'utf8' });
    expect({ status: run.status, output: `${run.stdout}${run.stderr}` }).toEqual({ status: 0, output: expect.stringContaining('up to date: docs/openapi.json, clients/typescript/openapi.ts') });
  }, 60_000);

  it('describes every route of the route table with its success and problem responses', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      const op = doc.paths[resourcePath(route)]?.[route.method.toLowerCase()];
      expect(op).toBeDefined();
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
  });
});
