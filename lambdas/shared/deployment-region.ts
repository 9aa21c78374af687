/**
 * The region this deployment runs in (Lambda sets `AWS_REGION`): the region Bedrock reconciliation reads
 * when an organization's setting names none. Locally, without either variable, `us-east-1`.
 */
export function deploymentRegion(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
}
