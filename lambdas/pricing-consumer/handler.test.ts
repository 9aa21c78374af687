import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { aggregateSk } from '../../core/ledger/aggregate-deltas';
import { calculateCost, getDefaultPriceRegistry } from '../../core/pricing';
import {
  createLambdaContext,
  createLocalAwsClients,
  provisionLocalResources,
  startStandIns,
  type StandIns,
} from '../../local/runtime';
import { envelopeOf, kinesisBatch, telemetryEvent } from '../../test/fixtures';
import { DynamoAggregateStore } from '../shared/stores/aggregate-store';
import { DynamoEventDedupeStore } from '../shared/stores/event-dedupe-store';
import { DynamoLedgerStore, type LedgerStore } from '../shared/stores/ledger-store';
import { LOCAL_RESOURCE_NAMES } from '../shared/table-definitions';
import { createPricingConsumer } from './handler';

let standIns: StandIns;
let clients: ReturnType<typeof createLocalAwsClients>;
let ledger: DynamoLedgerStore;
let aggregates: DynamoAggregateStore;
let dedupe: DynamoEventDedupeStore;

beforeAll(async () => {
  standIns = await startStandIns({ memory: true });
  clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  const table = { doc: clients.documentClient, tableName: LOCAL_RESOURCE_NAMES.dataTable };
  ledger = new DynamoLedgerStore(table);
  aggregates = new DynamoAggregateStore(table);
  dedupe = new DynamoEventDedupeStore(table);
});

afterAll(async () => {
  clients.destroy();
  await standIns.close();
});

const registry = getDefaultPriceRegistry();
const consumer = (l: LedgerStore = ledger) =>
  createPricingConsumer({
    services: { ledger: l, aggregates, dedupe, now: Date.now },
    registry: async () => registry,
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'test' }),
  });
const context = createLambdaContext({ functionName: 'pricing' });

/** gpt-4o at its published $2.50 / $10 per million tokens. */
const GPT4O_1000_IN_500_OUT_NANOS = 1000 * 2500 + 500 * 10_000;

async function monthTotal(orgId: string) {
  const rows = await aggregates.list(orgId, aggregateSk.month('2026-11'));
  return rows.find((r) => r.sk === aggregateSk.month('2026-11'));
}

describe('pricing consumer', () => {
  it('prices each event on the server and ignores the client figure except as discrepancy', async () => {
    const e = telemetryEvent({ eventId: 'evt_price', clientCostUsd: 99 });
    const out = await consumer()(kinesisBatch([{ seq: '100', envelope: envelopeOf('org_p', [e]) }]), context);
    expect(out.batchItemFailures).toEqual([]);
    const page = await ledger.query('org_p', {}, 10, null);
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      costNanos: GPT4O_1000_IN_500_OUT_NANOS,
      costSource: 'PROVIDER_REGISTRY',
      clientCostUsd: 99,
    });
    expect((await monthTotal('org_p'))?.costNanos).toBe(GPT4O_1000_IN_500_OUT_NANOS);
  });

  it('keeps apart the spend no budget lease counted: admission adds only that to its counter (issue 18.2)', async () => {
    const leased = telemetryEvent({ eventId: 'evt_leased', source: 'proxy', leased: true });
    const telemetry = telemetryEvent({ eventId: 'evt_telemetry' });
    const batch = kinesisBatch([{ seq: '150', envelope: envelopeOf('org_u', [leased, telemetry]) }]);
    await consumer()(batch, context);
    await consumer()(batch, context); // redelivered: still once
    expect(await monthTotal('org_u')).toMatchObject({
      calls: 2,
      costNanos: 2 * GPT4O_1000_IN_500_OUT_NANOS,
      unleasedCostNanos: GPT4O_1000_IN_500_OUT_NANOS,
    });
  });

  it('counts a redelivered record once', async () => {
    const batch = kinesisBatch([
      {
        seq: '200',
        envelope: envelopeOf('org_r', [telemetryEvent({ eventId: 'a' }), telemetryEvent({ eventId: 'b' })]),
      },
    ]);
    await consumer()(batch, context);
    await consumer()(batch, context);
    const total = await monthTotal('org_r');
    expect(total).toMatchObject({ calls: 2, costNanos: 2 * GPT4O_1000_IN_500_OUT_NANOS, inputTokens: 2000 });
  });

  it('counts an event id resent in a later record (a second ingest of the same batch) once', async () => {
    const e = telemetryEvent({ eventId: 'evt_dup' });
    await consumer()(kinesisBatch([{ seq: '300', envelope: envelopeOf('org_d', [e]) }]), context);
    await consumer()(kinesisBatch([{ seq: '301', envelope: envelopeOf('org_d', [e]) }]), context);
    expect((await monthTotal('org_d'))?.calls).toBe(1);
  });

  it('loses nothing and counts nothing twice when it crashes mid-batch', async () => {
    let puts = 0;
    const flaky: LedgerStore = {
      query: (...a) => ledger.query(...a),
      putForRecord: async (...a) => {
        // The second record's write fails once, after the first record was fully applied.
        if (++puts === 2) throw new Error('connection reset');
        return ledger.putForRecord(...a);
      },
    };
    const events = [1, 2, 3].map((i) => telemetryEvent({ eventId: `c${i}`, inputTokens: 1000 * i }));
    const batch = kinesisBatch([
      { seq: '400', envelope: envelopeOf('org_c', [events[0]!]) },
      { seq: '401', envelope: envelopeOf('org_c', [events[1]!]) },
      { seq: '402', envelope: envelopeOf('org_c', [events[2]!]) },
    ]);
    const first = await consumer(flaky)(batch, context);
    // The failed record and everything after it for the same organization are reported, in order.
    expect(first.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['401', '402']);
    // Lambda retries from the first failure, as the event source mapping does.
    const retry = kinesisBatch([
      { seq: '401', envelope: envelopeOf('org_c', [events[1]!]) },
      { seq: '402', envelope: envelopeOf('org_c', [events[2]!]) },
    ]);
    expect((await consumer(flaky)(retry, context)).batchItemFailures).toEqual([]);
    const expected = events.reduce(
      (sum, e) =>
        sum + calculateCost({ provider: 'openai', model: 'gpt-4o', usage: e, at: e.ts }, registry).costNanos,
      0,
    );
    expect(await monthTotal('org_c')).toMatchObject({ calls: 3, inputTokens: 6000, costNanos: expected });
  });

  it('sends a record that is not an envelope to the failure path (and so, after retries, the DLQ)', async () => {
    const batch = kinesisBatch([{ seq: '500', envelope: envelopeOf('org_x', [telemetryEvent()]) }]);
    batch.Records[0]!.kinesis.data = Buffer.from('not json').toString('base64');
    expect((await consumer()(batch, context)).batchItemFailures).toEqual([{ itemIdentifier: '500' }]);
  });
});
