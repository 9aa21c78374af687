import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { aggregateDeltas } from '../../core/ledger/aggregate-deltas';
import { toLedgerEntry } from '../../core/ledger/ledger-entry';
import type { PriceRegistry } from '../../core/pricing';
import type { LedgerExport } from '../shared/ledger-export';
import { processInOrder, type SequencedEnvelope } from '../shared/ordered-batch';
import { orgRatesFor, withBedrockProfiles } from '../shared/org-rates-source';
import type { BedrockProfileLookup } from '../shared/bedrock-profile-lookup';
import type { Services } from '../shared/services';

export interface PricingConsumerDeps {
  /** `pricingRates` is optional: without it every event is priced from the registry. */
  services: Pick<Services, 'ledger' | 'aggregates' | 'dedupe' | 'now'> &
    Partial<Pick<Services, 'pricingRates'>>;
  /** The price registry in force: the latest weekly snapshot where one was fetched, else the bundled data. */
  registry: () => Promise<PriceRegistry>;
  logger: Logger;
  metrics: Metrics;
  /**
   * Resolves Bedrock application-profile ARNs the organization has not mapped (GetInferenceProfile where
   * allowed); omit to price them from the mapping alone.
   */
  bedrockProfiles?: BedrockProfileLookup;
  /**
   * OpenTelemetry export of the calls this consumer writes (docs/opentelemetry.md). Every ledger event
   * passes here whatever its source (proxy, SDK, ingest), so each call is exported once. @default none
   */
  export?: LedgerExport;
}

/**
 * Kinesis consumer: prices every event (`core/ledger/event-cost.ts`: the provider's reported charge,
 * else the organization's own rate, else the registry; client dollar figures are kept only as a
 * discrepancy field), writes ledger entries and spend aggregates, exactly once under redelivery
 * (see docs/data-model.md: sequence-guarded writes, no transactions).
 */
export function createPricingConsumer(deps: PricingConsumerDeps) {
  const { services, metrics } = deps;

  const applyRecord = async ({ seq, envelope }: SequencedEnvelope): Promise<void> => {
    const registry = await deps.registry();
    const orgRates = await withBedrockProfiles(
      await orgRatesFor(services.pricingRates, envelope.orgId),
      envelope.events.map((e) => e.model),
      deps.bedrockProfiles,
    );
    // An event id repeated inside one record would pass the ledger's same-record condition twice.
    const unique = [...new Map(envelope.events.map((e) => [e.eventId, e])).values()];
    // An event id counted by an earlier record (a client retry, whatever its timestamp) is skipped.
    const claimed = await services.dedupe.claim(
      envelope.orgId,
      'ledger',
      seq,
      unique.map((e) => e.eventId),
      services.now(),
      envelope.keyId,
    );
    const entries = unique
      .filter((e) => claimed.has(e.eventId))
      .map((e) => toLedgerEntry(e, envelope.keyId, registry, orgRates));
    const fresh = await services.ledger.putForRecord(envelope.orgId, seq, entries);
    const calls = fresh.filter((e) => e.kind === 'call');
    // Only what this record newly wrote: an event an earlier record counted is not exported again, and
    // a record replayed after a crash re-sends its spans under the same ids (otel/event-id-generator.ts).
    deps.export?.calls(envelope.orgId, calls);
    // Spend a budget lease already counted is marked, so admission adds only the rest (issue 18.2).
    const leased = new Set(unique.filter((e) => e.leased === true).map((e) => e.eventId));
    await services.aggregates.applyRecord(
      envelope.orgId,
      seq,
      aggregateDeltas(calls.map((e) => ({ ...e, ts: Date.parse(e.ts), leased: leased.has(e.eventId) }))),
    );
    metrics.addMetric('EventsPriced', MetricUnit.Count, calls.length);
    metrics.addMetric('DuplicateEvents', MetricUnit.Count, envelope.events.length - fresh.length);
    metrics.addMetric(
      'SpendNanoUsd',
      MetricUnit.Count,
      calls.reduce((s, e) => s + e.costNanos, 0),
    );
  };

  return async (event: KinesisStreamEvent, context: Context): Promise<KinesisStreamBatchResponse> => {
    const result = await processInOrder(event, context, applyRecord);
    if (result.batchItemFailures.length) {
      deps.logger.warn('records failed; Lambda will retry from the first', {
        failed: result.batchItemFailures.length,
      });
    }
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    // Lambda freezes the process between invocations: nothing may wait in the exporters' queues.
    await deps.export?.flush();
    return result;
  };
}
