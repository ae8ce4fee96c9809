import { Match } from 'aws-cdk-lib/assertions';
import { environmentFromContext } from '../../lib/environments';
import { ORG_PREFIX } from '../../services/routes';
import { freshApp, synthesize } from './fixture';

const contextOf = (context: Record<string, unknown>) => environmentFromContext(freshApp(context).node);

describe('environmentFromContext', () => {
  it('defaults to the TEST environment', () => {
    expect(contextOf({})).toMatchObject({ name: 'test', apiEnvironment: 'TEST', stackPrefix: 'WfmTest', retainData: false, terminationProtection: false });
  });

  it('chooses LIVE with -c env=live', () => {
    expect(contextOf({ env: 'live' })).toMatchObject({ name: 'live', apiEnvironment: 'LIVE', stackPrefix: 'WfmLive', retainData: true, terminationProtection: true });
  });

  it('rejects an unknown environment, naming the context key', () => {
    expect(() => contextOf({ env: 'prod' })).toThrow(/Context env must be one of test, live/);
  });

  it("reads the custom host from the environment's own context object", () => {
    const config = contextOf({ env: 'live', live: { domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-central-1:1:certificate/x' }, test: { domainName: 'api.test.example.com' } });
    expect(config).toMatchObject({ domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-central-1:1:certificate/x' });
  });

  it('lets flat -c keys override the environment object', () => {
    const config = contextOf({ env: 'test', test: { domainName: 'a.example.com', certificateArn: 'arn:1' }, domainName: 'b.example.com' });
    expect(config.domainName).toBe('b.example.com');
  });

  it('requires certificateArn with domainName', () => {
    expect(() => contextOf({ domainName: 'api.test.example.com' })).toThrow(/certificateArn is required with domainName/);
  });

  it('requires hostedZoneId and hostedZoneName together', () => {
    expect(() => contextOf({ domainName: 'a.example.com', certificateArn: 'arn:1', hostedZoneId: 'Z1' })).toThrow(/hostedZoneId and hostedZoneName/);
  });

  it('rejects domain keys without domainName', () => {
    expect(() => contextOf({ certificateArn: 'arn:1' })).toThrow(/need domainName/);
  });
});

describe('custom domain', () => {
  const built = synthesize({
    env: 'live',
    domainName: 'api.example.com',
    certificateArn: 'arn:aws:acm:eu-central-1:111111111111:certificate/abc',
    hostedZoneId: 'Z0123456789',
    hostedZoneName: 'example.com',
  });
  const template = built.apiTemplate;

  it('creates a REGIONAL domain name with TLS 1.2 and the given certificate', () => {
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
      RegionalCertificateArn: 'arn:aws:acm:eu-central-1:111111111111:certificate/abc',
    });
  });

  it('maps the host, with no base path, to the public API stage only', () => {
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
    const publicApi = built.api.getLogicalId(built.api.publicApi.restApi.node.defaultChild as never);
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', { RestApiId: { Ref: publicApi }, BasePath: Match.absent() });
  });

  it('adds a Route 53 alias when the hosted zone is given', () => {
    template.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'api.example.com.', Type: 'A', HostedZoneId: 'Z0123456789' });
  });

  it('publishes base URLs on the custom host', () => {
    const outputs = template.findOutputs('*');
    expect(outputs.PublicBaseUrl.Value).toBe(`https://api.example.com${ORG_PREFIX}`);
    expect(outputs.ScimBaseUrl.Value).toBe(`https://api.example.com${ORG_PREFIX}/scim/v2`);
  });

  it('synthesizes no custom domain without context', () => {
    synthesize({ env: 'test' }).apiTemplate.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });
});
