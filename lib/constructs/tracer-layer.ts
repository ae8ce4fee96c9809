import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, DockerImage, Stack } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import type { Construct } from 'constructs';
import { fromRoot } from '../paths';

/**
 * The context switch of SDK-level tracing (`-c sdkTracing=true`): Powertools Tracer with
 * subsegments per AWS SDK call. Off by default: loading the X-Ray SDK at cold start costs more
 * than the performance budget allows (docs/performance.md, "Metrics and tracing"). Lambda's
 * own active tracing (the function's segments, initialization and invocation) is on either way.
 */
export const SDK_TRACING_CONTEXT = 'sdkTracing';

/** Whether `scope`'s app asked for SDK-level tracing. */
export function sdkTracingWanted(scope: Construct): boolean {
  const value: unknown = scope.node.tryGetContext(SDK_TRACING_CONTEXT);
  return value === true || value === 'true';
}

/** The modules the layer serves; the functions' bundles leave them out (esbuild `external`). */
export const TRACER_MODULES = ['@aws-lambda-powertools/tracer', '@aws-lambda-powertools/tracer/middleware'] as const;

/**
 * Powertools Tracer (with the X-Ray SDK) as a Lambda layer, bundled locally by esbuild from
 * the lockfile's version: `/opt/nodejs/node_modules/@aws-lambda-powertools/tracer`, which the
 * functions' `require` finds through Lambda's NODE_PATH. Only functions of an app with SDK
 * tracing get it, so no area bundle carries the ~150 KB of the tracer (the budget is 500 KB per
 * bundle). One per stack, made on first use.
 */
export class TracerLayer extends LayerVersion {
  static of(scope: Construct): TracerLayer {
    const stack = Stack.of(scope);
    return (stack.node.tryFindChild('TracerLayer') as TracerLayer | undefined) ?? new TracerLayer(stack, 'TracerLayer');
  }

  private constructor(scope: Construct, id: string) {
    super(scope, id, {
      description: 'Powertools Tracer and the X-Ray SDK, for SDK-level tracing (services/shared/observability.ts)',
      compatibleRuntimes: [Runtime.NODEJS_22_X],
      compatibleArchitectures: [Architecture.ARM_64],
      code: Code.fromAsset(fromRoot('node_modules/@aws-lambda-powertools/tracer'), {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never Docker: the local esbuild writes the layer (tryBundle returns true).
          image: DockerImage.fromRegistry('none'),
          local: { tryBundle: (outputDir) => (writeTracerLayer(outputDir), true) },
        },
      }),
    });
  }
}

/** Writes the layer's content into `outputDir`: one CommonJS file per module, and their package.json. */
export function writeTracerLayer(outputDir: string): void {
  const dir = join(outputDir, 'nodejs/node_modules/@aws-lambda-powertools/tracer');
  mkdirSync(dir, { recursive: true });
  const common = { bundle: true, platform: 'node' as const, format: 'cjs' as const, target: 'node22', minify: true, mainFields: ['main'], nodePaths: [fromRoot('node_modules')], logLevel: 'warning' as const };
  buildSync({ ...common, entryPoints: [fromRoot('node_modules/@aws-lambda-powertools/tracer/lib/cjs/index.js')], outfile: join(dir, 'index.js') });
  buildSync({ ...common, entryPoints: [fromRoot('node_modules/@aws-lambda-powertools/tracer/lib/cjs/middleware/middy.js')], outfile: join(dir, 'middleware.js') });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: '@aws-lambda-powertools/tracer', main: './index.js', exports: { '.': './index.js', './middleware': './middleware.js' } }, null, 2)}\n`);
}
