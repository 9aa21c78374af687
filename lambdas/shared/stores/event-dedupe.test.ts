/**
 * Issue 15.6 on the stand-ins: the same eventId sent again (no timestamp, so a new receive time; or a
 * different timestamp) counts once in the ledger, the aggregates and the guardrail state, across
 * retries a day apart, while a replayed Kinesis record still counts exactly once.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { EventEnvelope } from '../../../core/events/telemetry-event';
import { reviveOrgState } from '../../../core/guardrails';
import { aggregateSk } from '../../../core/ledger/aggregate-deltas';
import { createLambdaContext } from '../../../local/runtime';
import { startBackendHarness, type BackendHarness } from '../../../test/backend-harness';
import { kinesisBatch } from '../../../test/fixtures';
import { createGuardrailConsumer } from '../../guardrail-consumer/handler';
import { createIngestHandler } from '../../ingest/handler';
import { createPricingConsumer } from '../../pricing-consumer/handler';
import type { EventSink } from '../event-sink';
import { DEDUPE_TTL_SECONDS } from './event-dedupe-store';

let h: BackendHarness;
const puts: EventEnvelope[] = [];
const sink: EventSink = { put: async (envelopes) => void puts.push(...envelopes) };
let seq = 5000;
const context = createLambdaContext({ functionName: 'test' });
const T0 = Date.parse('2026-11-22T10:00:00.000Z');

beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

async function ingest(apiKey: string, events: unknown[]): Promise<number> {
  const res = await createIngestHandler({
    services: { ...h.services, sink },
    logger: h.logger,
    metrics: h.metrics,
  })(
    {
      version: '2.0',
      routeKey: 'POST /api/ingest',
      rawPath: '/api/ingest',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      requestContext: {} as APIGatewayProxyEventV2['requestContext'],
      body: JSON.stringify({ apiKey, events }),
      isBase64Encoded: false,
    },
    context,
  );
  return (res as { statusCode: number }).statusCode;
}

/** Runs the envelopes put so far through both consumers, as one Kinesis batch (twice when `replay`). */
async function consume(replay = false): Promise<void> {
  const batch = kinesisBatch(puts.splice(0).map((envelope) => ({ seq: String(++seq), envelope })));
  const deps = { services: h.services, registry: h.registry, logger: h.logger, metrics: h.metrics };
  for (let i = 0; i < (replay ? 2 : 1); i++) {
    expect((await createPricingConsumer(deps)(batch, context)).batchItemFailures).toEqual([]);
    expect((await createGuardrailConsumer(deps)(batch, context)).batchItemFailures).toEqual([]);
  }
}

async function counts(orgId: string) {
  const ledger = await h.services.ledger.query(orgId, {}, 100, null);
  const day = (await h.services.aggregates.list(orgId, aggregateSk.day('2026-11-22'))).find(
    (r) => r.sk === aggregateSk.day('2026-11-22'),
  );
  const state = reviveOrgState((await h.services.guardrailState.get(orgId)).state);
  return {
    ledgerEntries: ledger.entries.filter((e) => e.kind === 'call').length,
    calls: day?.calls ?? 0,
    inputTokens: day?.inputTokens ?? 0,
    guardrailDayNanos: state.layers.financialLimits?.daySpendNanos ?? 0,
    ledgerNanos: ledger.entries.reduce((s, e) => s + e.costNanos, 0),
  };
}

const event = (eventId: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  usage: { prompt_tokens: 1000, completion_tokens: 500 },
  eventId,
  ...extra,
});

describe('a retried eventId counts once (issue 15.6)', () => {
  it('without a timestamp, retried a minute and then a day later', async () => {
    const { apiKey } = await h.createKey('org_dup');
    h.setNow(T0);
    expect(await ingest(apiKey, [event('evt_retry')])).toBe(200);
    await consume();
    const once = await counts('org_dup');
    expect(once).toMatchObject({ ledgerEntries: 1, calls: 1, inputTokens: 1000 });
    expect(once.guardrailDayNanos).toBe(once.ledgerNanos);

    h.setNow(T0 + 60_000);
    expect(await ingest(apiKey, [event('evt_retry')])).toBe(200);
    await consume();
    h.setNow(T0 + 23 * 3600_000);
    expect(await ingest(apiKey, [event('evt_retry')])).toBe(200);
    await consume();
    expect(await counts('org_dup')).toEqual(once);
  });

  it('with a different timestamp, in the same batch as a new event, and under a replayed record', async () => {
    const { apiKey } = await h.createKey('org_dup2');
    h.setNow(T0);
    await ingest(apiKey, [event('evt_a', { timestamp: '2026-11-22T09:00:00.000Z' })]);
    await consume();
    await ingest(apiKey, [
      event('evt_a', { timestamp: '2026-11-22T09:30:00.000Z' }),
      event('evt_b', { timestamp: '2026-11-22T09:31:00.000Z' }),
    ]);
    await consume(true); // the second record is delivered twice
    const c = await counts('org_dup2');
    expect(c).toMatchObject({ ledgerEntries: 2, calls: 2, inputTokens: 2000 });
    expect(c.guardrailDayNanos).toBe(c.ledgerNanos);
  });

  it('remembers an id for at least 24 hours, then lets its claim expire', async () => {
    expect(DEDUPE_TTL_SECONDS).toBeGreaterThanOrEqual(24 * 3600);
    const claim = (s: string, now: number) =>
      h.services.dedupe.claim('org_ttl', 'ledger', s, ['evt_t'], now, 'key_ttl');
    expect(await claim('1', T0)).toEqual(new Set(['evt_t']));
    expect(await claim('1', T0 + 1000)).toEqual(new Set(['evt_t'])); // the same record, replayed
    expect(await claim('2', T0 + 24 * 3600_000)).toEqual(new Set()); // another record, a day later
    // past the claim's lifetime (counted from its last write, the replay at T0 + 1 s)
    expect(await claim('3', T0 + 1000 + (DEDUPE_TTL_SECONDS + 1) * 1000)).toEqual(new Set(['evt_t']));
  });

  it('is per sending key: one key’s ids do not suppress another key’s same ids (issue 21)', async () => {
    const first = await h.createKey('org_two_keys');
    const second = await h.createKey('org_two_keys');
    h.setNow(T0);
    // A predictable id, sent first by one integration, then by another of the same organization.
    expect(await ingest(first.apiKey, [event('evt_1')])).toBe(200);
    await consume();
    h.setNow(T0 + 1000); // received a second later (the ledger's sort key is the receive time)
    expect(await ingest(second.apiKey, [event('evt_1')])).toBe(200);
    await consume();
    // …and a retry by the first key still counts once.
    expect(await ingest(first.apiKey, [event('evt_1')])).toBe(200);
    await consume();
    const c = await counts('org_two_keys');
    expect(c).toMatchObject({ calls: 2, inputTokens: 2000 });
    expect(c.guardrailDayNanos).toBe(c.ledgerNanos);
  });
});
