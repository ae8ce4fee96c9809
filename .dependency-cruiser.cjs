/**
 * The architecture rules of services/ (docs/architecture.md), checked by `npm run lint:arch`
 * in every `npm test`. test/architecture/rules.test.ts proves that each rule fires on a
 * deliberate violation.
 */

/** Platform code that composes areas: the registry, the derived route table, the local runtime, the CLI, OpenAPI. */
const PLATFORM = '^services/(registry|routes)\\.ts$|^services/(local|cli|openapi|authorizer|api-keys)/';

/** Demo seeds (local runtime only): written through any area's use cases, never bundled. */
const SEEDS = '^services/[^/]+/seed\\.ts$';

/** Where the AWS SDK may be imported: the platform's AWS adapters, and each area's store files. */
const SDK_ALLOWED = ['^services/shared/(ddb|aws|crypto)/', '^services/[^/]+/store[^/]*\\.ts$', '^services/(local|cli)/', '^services/api-keys/store\\.ts$'];

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes load order matter and hides which module owns what: split the shared part out.',
      from: { path: '^services/' },
      to: { circular: true },
    },
    {
      name: 'sdk-only-in-stores',
      severity: 'error',
      comment: 'Only store files (and the shared AWS adapters) talk to AWS: domains, schemas and handlers stay testable without it.',
      from: { path: '^services/', pathNot: SDK_ALLOWED },
      to: { path: '(^|/)node_modules/@aws-sdk/|^@aws-sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'A domain holds rules on ports: no SDK, no store, no HTTP layer, no DynamoDB kit. Declare a port in the domain; the store implements it.',
      from: { path: '^services/[^/]+/domain[^/]*\\.ts$' },
      to: {
        path: ['(^|/)node_modules/@(aws-sdk|middy)/', '^@(aws-sdk|middy)/', '^services/[^/]+/store[^/]*\\.ts$', '^services/[^/]+/handler\\.ts$', '^services/shared/http/', '^services/shared/ddb/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'areas-through-ports',
      severity: 'error',
      comment: "An area uses another area only through that area's public.ts (its declared port); the audit model is the kit's.",
      from: { path: '^services/([^/]+)/', pathNot: ['^services/shared/', PLATFORM, SEEDS] },
      to: { path: '^services/[^/]+/', pathNot: ['^services/$1/', '^services/shared/', '^services/[^/]+/public\\.ts$', '^services/[^/]+/public-[a-z0-9-]+\\.ts$', '^services/audit/model\\.ts$'] },
    },
    {
      name: 'shared-knows-no-area',
      severity: 'error',
      comment: 'The kit serves every area and depends on none (the audit model is part of the kit: every change writes its entry).',
      from: { path: '^services/shared/' },
      to: { path: '^services/(?!shared/)', pathNot: ['^services/audit/model\\.ts$'] },
    },
    {
      name: 'seeds-are-local',
      severity: 'error',
      comment: "A demo seed is local-runtime code: only services/local/ (and another area's seed) may load it, so no Lambda bundle carries it.",
      from: { path: '^services/', pathNot: ['^services/local/', SEEDS] },
      to: { path: SEEDS },
    },
    {
      name: 'handlers-are-entries',
      severity: 'error',
      comment: 'A handler is a Lambda entry: no area imports it (the local gateway loads it by name, like Lambda does).',
      from: { path: '^services/', pathNot: PLATFORM },
      to: { path: '^services/[^/]+/handler\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|\\.local)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
