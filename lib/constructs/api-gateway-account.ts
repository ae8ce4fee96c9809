import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * The account's API Gateway CloudWatch role (AWS::ApiGateway::Account, one per account and
 * region): API Gateway needs it to write execution and access logs of every stage. It is
 * created once here rather than by each RestApi (`cloudWatchRole: true` on two RestApis would
 * make two resources fight over the same setting). Both are retained on delete, so removing
 * the TEST stacks never unsets the role that LIVE stages in the same account still use.
 */
export class ApiGatewayAccountLogging extends Construct {
  readonly role: Role;
  readonly account: CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account.node.addDependency(this.role);

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason: 'Account-wide role that API Gateway uses for the logs of every API in the region (not only ours), so it cannot be scoped to our log groups; this is the AWS-documented managed policy for it.',
    });
  }
}
