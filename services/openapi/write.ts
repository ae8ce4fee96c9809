import { writeFileSync } from 'node:fs';
import { openApiDocument } from './document';

/** `npm run openapi`: writes docs/openapi.json from the route table and the zod schemas. */
writeFileSync('docs/openapi.json', `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log('wrote docs/openapi.json');
