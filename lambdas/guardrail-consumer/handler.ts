import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import type { TelemetryEvent } from '../../core/events/telemetry-event';
import {
  applyEvents,
  eventSequenceNumber,
  financialBlockState,
  type GuardrailEvent,
  type GuardrailPolicy,
  type OrgGuardrailState,
  reviveOrgState,
  type Verdict,
} from '../../core/guardrails';
import { effectivePolicy, type BudgetCaps } from '../../core/guardrails/org-policy';
import { RESUMABLE_LAYERS, sinceResumes } from '../../core/guardrails/resume';
import { toLedgerEntry } from '../../core/ledger/ledger-entry';
import { costOfEvent } from '../../core/ledger/event-cost';
import { isPremiumModel, type CompiledOrgRates, type PriceRegistry } from '../../core/pricing';
import { enforcementDeps, flagTarget, isAt, pushFlag } from '../shared/enforcement';
import { padSeq } from '../shared/item-keys';
import { orgRatesFor, withBedrockProfiles } from '../shared/org-rates-source';
import type { BedrockProfileLookup } from '../shared/bedrock-profile-lookup';
import type { LedgerExport } from '../shared/ledger-export';
import { processInOrder, type SequencedEnvelope } from '../shared/ordered-batch';
import type { Services } from '../shared/services';

export interface GuardrailConsumerDeps {
  services: Services;
  registry: () => Promise<PriceRegistry>;
  logger: Logger;
  metrics: Metrics;
  /**
   * Resolves Bedrock application-profile ARNs the organization has not mapped (GetInferenceProfile where
   * allowed); omit to price them from the mapping alone.
   */
  bedrockProfiles?: BedrockProfileLookup;
  /** OpenTelemetry export of trips, as span events (docs/opentelemetry.md). @default none */
  export?: Pick<LedgerExport, 'trip' | 'flush'>;
}

/** A flag that still has this long to live is not rewritten by a re-trip (bounds writes while blocked). */
const REFRESH_FLAG_WHEN_LEFT_MS = 10 * 60 * 1000;

/**
 * Kinesis consumer: runs the five guardrail layers per organization in sequence order. The state is one
 * item per organization, saved with a condition on the last applied sequence number. A trip goes through
 * the same enforcement code as the endpoint and writes the flag; a soft cap writes a warning to the ledger
 * and notifies. Effects happen before the state is saved, so a crash between them replays the record and
 * re-applies the (idempotent) effects instead of losing them. Ingest never waits for any of this.
 */
export function createGuardrailConsumer(deps: GuardrailConsumerDeps) {
  const { services, metrics, logger, export: exported } = deps;

  const toGuardrailEvent = (
    e: TelemetryEvent,
    seq: string,
    keyId: string,
    orgId: string,
    registry: PriceRegistry,
    orgRates: CompiledOrgRates | null,
  ): GuardrailEvent => {
    // The same price as the ledger's (provider-reported charge, org rate, registry): core/ledger/event-cost.
    const cost = costOfEvent(e, registry, orgRates);
    return {
      seq,
      orgId,
      keyId,
      ...(e.sessionId ? { sessionId: e.sessionId } : {}),
      provider: e.provider,
      model: e.model,
      ...(e.fingerprint ? { fingerprint: e.fingerprint } : {}),
      promptTokens: e.inputTokens,
      completionTokens: e.outputTokens,
      costNanos: cost.costNanos,
      premium: isPremiumModel(e.provider, e.model, { registry }),
      ts: e.ts,
    };
  };

  const applyRecord = async ({ seq, envelope }: SequencedEnvelope): Promise<void> => {
    const { orgId } = envelope;
    const registry = await deps.registry();
    const orgRates = await withBedrockProfiles(
      await orgRatesFor(services.pricingRates, orgId),
      envelope.events.map((e) => e.model),
      deps.bedrockProfiles,
    );
    const config = await services.config.get(orgId);
    const policy = effectivePolicy(config?.policy, config?.budget as BudgetCaps | undefined);
    const stored = await services.guardrailState.get(orgId);
    const state = reviveOrgState(stored.state);

    const recordSeq = padSeq(seq);
    // An event id already counted by an earlier record (a client retry) is not counted again.
    const claimed = await services.dedupe.claim(
      orgId,
      'guardrails',
      seq,
      envelope.events.map((e) => e.eventId),
      services.now(),
      envelope.keyId,
    );
    const events = envelope.events
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => e.kind === 'call' && claimed.has(e.eventId))
      .map(({ e, i }) =>
        toGuardrailEvent(e, eventSequenceNumber(recordSeq, i), envelope.keyId, orgId, registry, orgRates),
      );
    let result = applyEvents(state, events, policy, services.now());
    if (result.verdicts.some((v) => RESUMABLE_LAYERS.has(v.layer))) {
      // A loop, burst or premium verdict: if a person resumed since the window began, the window starts at
      // the Resume, and only what came after it decides (core/guardrails/resume.ts). Read only then.
      const since = sinceResumes(
        state,
        await services.resumes.get(orgId),
        policy.premiumConcentration.bucketMs,
        events.map((e) => [e.keyId, e.model] as const),
      );
      if (since !== state) result = applyEvents(since, events, policy, services.now());
    }
    if (result.failedLayers.length)
      logger.error('guardrail layers failed (passed open)', { layers: result.failedLayers });

    await applyVerdicts(orgId, seq, envelope.events[0], result.verdicts, result.state, policy);
    const saved = await services.guardrailState.put(orgId, result.state, seq, stored.lastSeq, stored.rev);
    if (!saved) throw new Error(`guardrail state of ${orgId} changed under us; retrying the record`);
  };

  const applyVerdicts = async (
    orgId: string,
    seq: string,
    sample: TelemetryEvent | undefined,
    verdicts: Verdict[],
    state: OrgGuardrailState,
    policy: GuardrailPolicy,
  ): Promise<void> => {
    if (verdicts.length === 0) return;
    const now = services.now();
    // One effect per trigger and target per record: a burst of events past a cap is one trip, not many,
    // while two sessions looping in one record are two trips.
    const byTrigger = new Map<string, Verdict>();
    for (const v of verdicts) byTrigger.set(`${v.triggerType}|${v.scope}|${v.keyId}|${v.sessionId ?? ''}`, v);
    const activeFlags = await services.flags.listByOrg(orgId, now);
    const deps = await enforcementDeps(services);

    for (const v of byTrigger.values()) {
      const at = new Date(now).toISOString();
      if (v.action === 'WARN') {
        await recordWarning(orgId, seq, sample, v, at);
        continue;
      }
      // The layer's scope (a policy field), applied to the key and session that sent the events.
      const target = flagTarget(v.scope, v.keyId, v.sessionId ?? null);
      const current = activeFlags.find((f) => f.state === v.action && isAt(f, target));
      if (current && current.expiresAt * 1000 - now > REFRESH_FLAG_WHEN_LEFT_MS) continue;
      const block = v.layer === 'financialLimits' ? financialBlockState(state, policy, now) : undefined;
      await pushFlag(
        deps,
        {
          orgId,
          target,
          action: v.action,
          triggerType: v.triggerType,
          observedValue: v.observedValue,
          thresholdValue: v.thresholdValue,
          mode: v.mode,
          ...(block?.flagTtlMs ? { ttlSeconds: Math.ceil(block.flagTtlMs / 1000) } : {}),
        },
        now,
      );
      metrics.addMetric('GuardrailTrips', MetricUnit.Count, 1);
      metrics.addMetric(`Trips_${v.layer}`, MetricUnit.Count, 1);
      if (!current) {
        await services.trips.add(orgId, tripOf(v, at));
        exported?.trip({ orgId, ...tripOf(v, at), scope: v.scope, at: now });
        await notify(orgId, 'guardrail_trip', v, at);
      }
    }
  };

  const recordWarning = async (
    orgId: string,
    seq: string,
    sample: TelemetryEvent | undefined,
    v: Verdict,
    at: string,
  ): Promise<void> => {
    await services.trips.add(orgId, tripOf(v, at));
    if (sample) {
      const registry = await deps.registry();
      const warning = toLedgerEntry(
        {
          ...sample,
          eventId: `warn_${padSeq(seq)}_${v.triggerType}`,
          kind: 'budget_warning',
          ts: Date.parse(at),
        },
        v.keyId,
        registry,
      );
      await services.ledger.putForRecord(orgId, seq, [warning]);
    }
    metrics.addMetric('SoftCapWarnings', MetricUnit.Count, 1);
    await notify(orgId, 'soft_cap_warning', v, at);
  };

  const notify = async (
    orgId: string,
    kind: 'guardrail_trip' | 'soft_cap_warning',
    v: Verdict,
    at: string,
  ) => {
    try {
      await services.notifier.notify({
        orgId,
        kind,
        triggerType: v.triggerType,
        observedValue: v.observedValue,
        thresholdValue: v.thresholdValue,
        message: v.message,
        at,
      });
    } catch (err) {
      // A notification channel being down must not hold back enforcement.
      logger.warn('notification failed', { error: err as Error });
    }
  };

  return async (event: KinesisStreamEvent, context: Context): Promise<KinesisStreamBatchResponse> => {
    const result = await processInOrder(event, context, applyRecord);
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    // Lambda freezes the process between invocations: nothing may wait in the exporters' queues.
    await exported?.flush();
    return result;
  };
}

function tripOf(v: Verdict, at: string) {
  return {
    at,
    layer: v.layer,
    triggerType: v.triggerType,
    observedValue: v.observedValue,
    thresholdValue: v.thresholdValue,
    mode: v.mode,
    action: v.action,
    keyId: v.keyId,
    sessionId: v.sessionId ?? null,
    message: v.message,
  };
}
