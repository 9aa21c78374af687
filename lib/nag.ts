/**
 * cdk-nag v3 acknowledgements: CDK's native `Validations.of(scope).acknowledge()`. Every one carries a
 * written reason. Findings of one rule on one resource (`AwsSolutions-IAM5[Resource::…]`) are
 * acknowledged one by one, so an unexpected new wildcard in a policy Spendguard writes still fails the
 * nag test.
 */
import { Aspects, CfnElement, type IAspect, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { IConstruct } from 'constructs';

/** Acknowledges one finding (or one rule) on `scope` and everything below it, with a reason. */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** The CloudFormation logical id of a construct's resource, as cdk-nag prints it in finding ids. */
export function logicalIdOf(resource: IConstruct): string {
  const element = resource instanceof CfnElement ? resource : resource.node.defaultChild;
  if (!(element instanceof CfnElement))
    throw new Error(`${resource.node.path} has no CloudFormation resource`);
  return Stack.of(element).resolve(element.logicalId) as string;
}

interface PolicyStatementJson {
  readonly Effect?: string;
  readonly Action?: string | string[];
  readonly Resource?: unknown;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The `AwsSolutions-IAM5[…]` finding ids of a resolved policy document (cdk-nag's own formatting). */
export function wildcardFindings(document: { Statement?: PolicyStatementJson[] }): string[] {
  const findings = new Set<string>();
  for (const statement of document.Statement ?? []) {
    if (statement.Effect !== 'Allow') continue;
    for (const action of asArray(statement.Action))
      if (action.includes('*')) findings.add(`Action::${action}`);
    for (const resource of asArray(statement.Resource)) {
      const flat = flattenCfnReference(resource);
      if (flat.includes('*')) findings.add(`Resource::${flat}`);
    }
  }
  return [...findings].map((f) => `AwsSolutions-IAM5[${f}]`);
}

/**
 * For helper resources that aws-cdk-lib generates (the BucketDeployment handler, EventBridge
 * Scheduler target roles): acknowledges each wildcard of their generated policies, resolved at
 * synth, with one reason. Never used on the policies of Spendguard's own functions.
 */
export function acknowledgeGeneratedWildcards(scope: IConstruct, reason: string): void {
  const aspect: IAspect = {
    visit(node: IConstruct): void {
      if (!(node instanceof iam.CfnPolicy)) return;
      const document = Stack.of(node).resolve(node.policyDocument) as { Statement?: PolicyStatementJson[] };
      for (const id of wildcardFindings(document)) acknowledge(node, id, reason);
    },
  };
  Aspects.of(scope).add(aspect);
}

/** Children of `stack` whose id starts with `prefix` (singletons that aws-cdk-lib adds to the stack). */
export function stackChildrenWithPrefix(stack: Stack, prefix: string): IConstruct[] {
  return stack.node.children.filter((c) => c.node.id.startsWith(prefix));
}
