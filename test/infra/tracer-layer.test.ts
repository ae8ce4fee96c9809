import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AreaFunction } from '../../lib/constructs/area-function';
import { writeTracerLayer } from '../../lib/constructs/tracer-layer';
import { freshStack } from './fixture';

/**
 * SDK-level tracing on request (`-c sdkTracing=true`): the function gets the tracer layer and
 * no POWERTOOLS_TRACE_ENABLED=false; the layer's modules load where no node_modules is.
 */
describe('SDK tracing switch', () => {
  it('attaches the tracer layer and leaves tracing on when asked', () => {
    const stack = freshStack({ sdkTracing: 'true' });
    new AreaFunction(stack, 'Subject', { name: 'materials', apiEnvironment: 'TEST' });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::Lambda::LayerVersion', 1);
    template.hasResourceProperties('AWS::Lambda::LayerVersion', { CompatibleRuntimes: ['nodejs22.x'], CompatibleArchitectures: ['arm64'] });
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0].Properties;
    expect(fn.Layers).toHaveLength(1);
    expect(fn.TracingConfig).toEqual({ Mode: 'Active' });
    expect(fn.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
  });

  it('writes a layer whose Tracer and middleware load through NODE_PATH alone, as in Lambda', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfm-tracer-layer-'));
    try {
      writeTracerLayer(dir);
      const script = [
        "const { Tracer } = require('@aws-lambda-powertools/tracer');",
        "const { captureLambdaHandler } = require('@aws-lambda-powertools/tracer/middleware');",
        'const tracer = new Tracer({ captureHTTPsRequests: false });',
        "process.stdout.write(JSON.stringify({ enabled: tracer.isTracingEnabled(), middleware: typeof captureLambdaHandler(tracer).before }));",
      ].join('\n');
      // cwd is the temporary folder: no node_modules of the project can be found from there.
      const out = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', NODE_PATH: join(dir, 'nodejs/node_modules'), AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_REGION: 'eu-central-1' } });
      expect(out.stderr).toBe('');
      expect(JSON.parse(out.stdout)).toEqual({ enabled: true, middleware: 'function' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
