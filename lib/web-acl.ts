/**
 * CLOUDFRONT-scope AWS WAF web ACLs for Spendguard's distributions (the proxy's optional rate rule, the
 * API's default-on ACL). AWS WAF accepts CLOUDFRONT scope only in us-east-1, so the ACL lives in the
 * stack that holds the edge guard (EdgeFunction's us-east-1 stack, or the home stack in us-east-1).
 */
import { Stack } from 'aws-cdk-lib';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { acknowledge } from './nag';
import { EDGE_SECRET_REGION } from './secrets';

/** Options of {@link cloudFrontWebAclArn}. */
export interface CloudFrontWebAclOptions {
  /** The stack in us-east-1 that holds CLOUDFRONT-scope resources (the edge guard's). */
  readonly edgeStack: Stack;
  /** Construct ids: the ACL and its SSM parameter (edge stack), the reader (beside the distribution). */
  readonly ids: { readonly acl: string; readonly parameter: string; readonly reader: string };
  /** The SSM parameter (in us-east-1) that carries the ACL's ARN to the home region. */
  readonly parameterName: string;
  /** The web ACL; its scope is always CLOUDFRONT. */
  readonly acl: Omit<wafv2.CfnWebACLProps, 'scope'>;
  /** Changes whenever the ARN must be read again (the ACL's ARN itself is stable across rule updates). */
  readonly readKey: string;
}

/**
 * Creates a CLOUDFRONT-scope web ACL in the edge stack and returns its ARN as a value usable by a
 * distribution in `owner`'s stack: directly when both are one stack, else through an SSM parameter in
 * us-east-1 read back at deploy (the way EdgeFunction passes the guard's version ARN across regions).
 */
export function cloudFrontWebAclArn(owner: Construct, options: CloudFrontWebAclOptions): string {
  const { edgeStack } = options;
  const home = Stack.of(owner);
  const scope = edgeStack === home ? owner : edgeStack;
  const acl = new wafv2.CfnWebACL(scope, options.ids.acl, { ...options.acl, scope: 'CLOUDFRONT' });
  if (edgeStack === home) return acl.attrArn;
  const { parameterName } = options;
  new ssm.StringParameter(scope, options.ids.parameter, { parameterName, stringValue: acl.attrArn });
  const reader = new cr.AwsCustomResource(owner, options.ids.reader, {
    onUpdate: {
      service: 'SSM',
      action: 'getParameter',
      parameters: { Name: parameterName },
      region: EDGE_SECRET_REGION,
      physicalResourceId: cr.PhysicalResourceId.of(options.readKey),
    },
    policy: cr.AwsCustomResourcePolicy.fromSdkCalls({
      resources: [
        `arn:${home.partition}:ssm:${EDGE_SECRET_REGION}:${home.account}:parameter${parameterName}`,
      ],
    }),
    installLatestAwsSdk: false,
  });
  acknowledgeAwsCustomResourceProvider(home);
  return reader.getResponseField('Parameter.Value');
}

/** The singleton Lambda of CDK's AwsCustomResource (reads a web ACL's ARN from us-east-1 at deploy). */
function acknowledgeAwsCustomResourceProvider(stack: Stack): void {
  for (const child of stack.node.children) {
    if (!child.node.id.startsWith('AWS')) continue;
    acknowledge(
      child,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "CDK's AwsCustomResource handler (runs only at deploy) uses the basic execution policy for its own logs.",
    );
    acknowledge(
      child,
      'AwsSolutions-L1',
      "CDK's AwsCustomResource handler: its runtime is chosen by aws-cdk-lib and runs only at deploy.",
    );
  }
}
