import { BasePathMapping, DomainName, EndpointType, SecurityPolicy, type IRestApi, type Stage } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

export interface ApiDomainProps {
  /** The environment's host, e.g. `api.test.example.com`. */
  readonly domainName: string;
  /** An ACM certificate for `domainName`, in the stack's region (REGIONAL endpoint). */
  readonly certificateArn: string;
  /** The RestApi whose stage the host maps to, with no base path. */
  readonly restApi: IRestApi;
  readonly stage: Stage;
  /**
   * Route 53 hosted zone for an alias record of `domainName`; needs `hostedZoneName` too.
   * @default - no DNS record: point the name at the regional domain yourself (output `RegionalDomainName`)
   */
  readonly hostedZoneId?: string;
  /**
   * The hosted zone's name, e.g. `example.com`.
   * @default - no DNS record
   */
  readonly hostedZoneName?: string;
}

/**
 * The custom host of one environment: a REGIONAL API Gateway domain name with TLS 1.2,
 * mapped (no base path) to the public API stage. SCIM requests arrive on the same host and
 * are forwarded by the public API to the SCIM RestApi.
 */
export class ApiDomain extends Construct {
  readonly domain: DomainName;
  readonly record?: ARecord;

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    if (!props.certificateArn) throw new Error(`ApiDomain ${id}: certificateArn is required with domainName "${props.domainName}".`);
    if (Boolean(props.hostedZoneId) !== Boolean(props.hostedZoneName)) {
      throw new Error(`ApiDomain ${id}: set both hostedZoneId and hostedZoneName for a Route 53 record, or neither (got hostedZoneId=${props.hostedZoneId ?? 'unset'}, hostedZoneName=${props.hostedZoneName ?? 'unset'}).`);
    }
    this.domain = new DomainName(this, 'DomainName', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, 'RootMapping', { domainName: this.domain, restApi: props.restApi, stage: props.stage });

    if (props.hostedZoneId && props.hostedZoneName) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: props.hostedZoneId, zoneName: props.hostedZoneName });
      this.record = new ARecord(this, 'Alias', { zone, recordName: props.domainName, target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domain)) });
    }
  }
}
