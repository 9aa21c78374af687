/**
 * Names of the resources that outlive `cdk destroy` (RemovalPolicy.RETAIN) and must be known at synth
 * (the edge guard has them baked in, or AWS requires a fixed name). They are derived from the stack name
 * and a generation number, so that a stack deployed again after a destroy does not collide with what
 * the previous one left behind (docs/deploy.md, "Destroy and deploy again").
 */

/** The fixed-name retained resources of one deployment. */
export interface RetainedNames {
  /** The Flags global table (baked into the edge guard). */
  readonly flagsTable: string;
  /** The API-key pepper secret (baked into the edge guard). */
  readonly pepperSecret: string;
  /** The forecast state machine's log group (Step Functions requires `/aws/vendedlogs/states/`). */
  readonly forecastLogGroup: string;
}

/** The largest generation accepted (a typo guard; a deployment is recreated a handful of times). */
export const MAX_RESOURCE_GENERATION = 999;

/**
 * The names for `stackName` and `generation`. Generation 1 keeps the names of earlier releases
 * (`<stack>-Flags`, `<stack>/pepper`); generation N > 1 inserts `-gN` after the stack name.
 * @throws Error when the generation is not an integer from 1 to {@link MAX_RESOURCE_GENERATION}.
 */
export function retainedNames(stackName: string, generation = 1): RetainedNames {
  if (!Number.isInteger(generation) || generation < 1 || generation > MAX_RESOURCE_GENERATION) {
    throw new Error(
      `resourceGeneration must be an integer from 1 to ${MAX_RESOURCE_GENERATION}; got ${generation}`,
    );
  }
  const base = generation === 1 ? stackName : `${stackName}-g${generation}`;
  return {
    flagsTable: `${base}-Flags`,
    pepperSecret: `${base}/pepper`,
    forecastLogGroup: `/aws/vendedlogs/states/${base}-forecast`,
  };
}
