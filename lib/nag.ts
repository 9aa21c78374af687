/**
 * cdk-nag v3 acknowledgements: CDK's native `Validations.of(scope).acknowledge()`. Every one carries a
 * written reason; findings of one rule on one resource (`AwsSolutions-IAM5[Resource::…]`) are
 * acknowledged one by one, so an unexpected new wildcard still fails the nag test.
 */
import { CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Acknowledges one finding (or one rule) on `scope` and everything below it, with a reason. */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** The CloudFormation logical id of a construct's resource, as cdk-nag prints it in finding ids. */
export function logicalIdOf(resource: IConstruct): string {
  const element = resource instanceof CfnElement ? resource : resource.node.defaultChild;
  if (!(element instanceof CfnElement)) throw new Error(`${resource.node.path} has no CloudFormation resource`);
  return Stack.of(element).resolve(element.logicalId) as string;
}
