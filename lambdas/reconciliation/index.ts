import { z } from 'zod';
import { getInferenceProfileLookup } from '../shared/bedrock-profile-lookup';
import { logger, servicesFromEnvironment } from '../shared/environment';
import { createReconciliationRunner } from './runner';

const inputSchema = z.object({ orgId: z.string().min(1).optional() }).passthrough();

/** Settings from the variables the CDK sets (lib/reconciliation.ts). */
function settingsFromEnvironment() {
  const num = (name: string): number | undefined => {
    const v = process.env[name];
    const n = v === undefined || v === '' ? NaN : Number(v);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  return {
    windowDays: num('RECONCILIATION_WINDOW_DAYS'),
    untrackedAlertUsd: num('RECONCILIATION_UNTRACKED_ALERT_USD'),
  };
}

/**
 * AWS entry of the daily reconciliation (EventBridge Scheduler): every organization, or the one named
 * by `{ orgId }`.
 */
export const handler = async (input: unknown) => {
  const { orgId } = inputSchema.parse(input ?? {});
  const runner = createReconciliationRunner({
    services: servicesFromEnvironment(),
    logger,
    // Bedrock application profiles the organization has not mapped, as the pricing consumer resolves them.
    bedrockProfiles: getInferenceProfileLookup(),
    ...settingsFromEnvironment(),
  });
  if (orgId) {
    const record = await runner.runOrganization(orgId);
    return { orgId, computedAt: record.computedAt, errors: record.errors.length };
  }
  await runner.runAll();
  return { done: true };
};
