/**
 * Lambda entry of the relay (Function URL, auth type NONE, invoke mode RESPONSE_STREAM).
 *
 * Environment (set by the CDK construct): `DATA_TABLE`, `FLAGS_TABLE`, `EVENTS_STREAM`,
 * `PEPPER_SECRET_ARN` (shared with the other functions, see lambdas/shared/environment.ts), `PRICES_BUCKET` /
 * `PRICES_KEY` (the price snapshot the pipeline prices with) and
 * `ORIGIN_SECRET_ARN`, the secret CloudFront sends as the `x-spendguard-origin-secret` custom origin
 * header. Optional `UPSTREAM_<SLUG>` (e.g. `UPSTREAM_OPENAI`) overrides a provider's base URL; optional
 * `DEFERRED_BILLING_ORGS` (comma-separated organization ids) lets those organizations make batch,
 * fine-tuning and background calls under a hard cap whatever their own `allowDeferredBilling` budget
 * setting (docs/proxy.md).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { EdgeGuard, flagSourceFromStore } from '../edge-guard/guard';
import { EmfMetrics } from '../edge-guard/metrics';
import { SpoolingEventSink } from '../shared/event-sink';
import { priceRegistryFromEnvironment, servicesFromEnvironment } from '../shared/environment';
import { createOrgPricingSource } from '../shared/org-pricing-source';
import { SecretsManagerVersions } from '../shared/secrets';
import { createStreamingHandler } from './lambda-adapter';
import { countOpenAITokens } from '../../core/usage/tokenizer-openai';
import { LeaseAdmission } from './budget-admission';
import { Relay } from './relay';
import { InlineLoopCheck } from './loop-check';
import { deferredBillingPolicy } from '../shared/deferred-billing';
import { OrgPolicyCache } from './org-policy-cache';
import { TripLogVerdicts } from './loop-verdicts';

let relay: Relay | undefined;
let admission: LeaseAdmission | undefined;

function upstreamsFromEnvironment(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('UPSTREAM_') && value) out[name.slice('UPSTREAM_'.length).toLowerCase()] = value;
  }
  return out;
}

function buildRelay(): Relay {
  const services = servicesFromEnvironment();
  const originSecretArn = process.env.ORIGIN_SECRET_ARN;
  if (!originSecretArn) throw new Error('environment variable ORIGIN_SECRET_ARN is not set');
  // Current and previous version: a rotation never locks CloudFront out of a warm relay.
  const originSecret = new SecretsManagerVersions(new SecretsManagerClient({}), originSecretArn);
  const metrics = new EmfMetrics({ service: 'relay' });
  const deferredOrgs = new Set(
    (process.env.DEFERRED_BILLING_ORGS ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id.length > 0),
  );
  return new Relay({
    keys: services.apiKeys,
    // Events outlive a stream hiccup in a bounded spool (issue 15.12; drops counted as RelayEventFailed).
    sink: new SpoolingEventSink({ inner: services.sink, metrics }),
    originSecret,
    upstreams: upstreamsFromEnvironment(),
    metrics,
    // The organization's budget setting, or the deployment's list (issue 18.6).
    deferredBillingAllowed: deferredBillingPolicy({ config: services.config, allowList: deferredOrgs }),
    // The edge's kill check again at the origin (issue 19.5): a call that reaches the Function URL without
    // CloudFront meets the same flags. Cached per key and session for a second, like the edge.
    flags: new EdgeGuard({
      flags: flagSourceFromStore(services.flags),
      pepper: () => services.pepper.get(),
      metrics,
    }),
    // The organization's rates and the price snapshot, as the pricing consumer applies them (issue 18.2).
    pricing: createOrgPricingSource({
      rates: services.pricingRates,
      registry: priceRegistryFromEnvironment(),
    }),
    // Layer 2 in line (issue 19.6): the organization's policy, cached per container, and this container's
    // count of identical calls; a loop is refused on the call after the pipeline's verdict call, until the
    // pipeline's trip log shows its flag (a Resume then ends the hold).
    loops: new InlineLoopCheck({
      policies: new OrgPolicyCache({ config: services.config }),
      verdicts: new TripLogVerdicts(services.trips),
      // The runs every container adds to: a tight loop lands on a new container while the last one
      // finishes its invocation, so each container alone sees only some of its calls.
      shared: services.loopRuns,
      // A Resume of the key ends its hold at once (the trip log alone waits out the flag caches).
      resumes: services.resumes,
      metrics,
    }),
    // One lease holder per container: its slices live in memory between invocations (docs/admission.md).
    admission: (admission = new LeaseAdmission({
      leases: services.budgetLeases,
      metrics,
      tokenCounter: countOpenAITokens,
    })),
  });
}

// Lease operations in flight finish before the invocation returns: a freeze would strand them.
export const handler = createStreamingHandler(() => (relay ??= buildRelay()), undefined, {
  beforeFreeze: () => admission?.invocationEnded() ?? Promise.resolve(),
});
