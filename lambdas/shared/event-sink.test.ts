import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import type { EventEnvelope } from '../../core/events/telemetry-event';
import { KinesisEventSink, MAX_RECORD_BYTES, SinkUnavailableError, toRecords } from './event-sink';

const kinesis = mockClient(KinesisClient);

function envelope(orgId: string, events = 1, modelLength = 10): EventEnvelope {
  return {
    v: 1,
    orgId,
    keyId: 'k1',
    receivedAt: 0,
    events: Array.from({ length: events }, (_, i) => ({
      eventId: `evt_${i}`,
      ts: 0,
      source: 'ingest' as const,
      kind: 'call' as const,
      provider: 'openai',
      model: 'm'.repeat(modelLength),
      inputTokens: 1,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      serviceTier: null,
      estimated: false,
      clientCostUsd: null,
      providerCostUsd: null,
      latencyMs: null,
      statusCode: null,
      projectId: null,
      environment: null,
      featureId: null,
      sessionId: null,
      fingerprint: null,
      endpoint: null,
      stream: null,
      verified: true,
    })),
  };
}

const sink = () =>
  new KinesisEventSink({
    client: kinesis as unknown as KinesisClient,
    streamName: 's',
    sleep: async () => undefined,
  });

beforeEach(() => kinesis.reset());

describe('KinesisEventSink', () => {
  it('puts one record per organization with the organization as partition key', async () => {
    kinesis.on(PutRecordsCommand).resolves({ FailedRecordCount: 0, Records: [{}, {}] });
    await sink().put([envelope('org_a', 3), envelope('org_b', 2)]);
    const input = kinesis.commandCalls(PutRecordsCommand)[0]!.args[0].input;
    expect(input.Records?.map((r) => r.PartitionKey)).toEqual(['org_a', 'org_b']);
    const first = JSON.parse(Buffer.from(input.Records![0]!.Data!).toString()) as EventEnvelope;
    expect(first.events).toHaveLength(3);
  });

  it('retries only the records that failed, until they are accepted', async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolvesOnce({
        FailedRecordCount: 1,
        Records: [{ SequenceNumber: '1' }, { ErrorCode: 'ProvisionedThroughputExceededException' }],
      })
      .resolvesOnce({ FailedRecordCount: 0, Records: [{ SequenceNumber: '2' }] });
    await sink().put([envelope('org_a'), envelope('org_b')]);
    const calls = kinesis.commandCalls(PutRecordsCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.Records?.map((r) => r.PartitionKey)).toEqual(['org_b']);
  });

  it('fails loudly (never drops silently) when the stream keeps refusing', async () => {
    kinesis.on(PutRecordsCommand).rejects(new Error('service unavailable'));
    await expect(sink().put([envelope('org_a')])).rejects.toBeInstanceOf(SinkUnavailableError);
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(4);
  });

  it('splits an envelope that does not fit one Kinesis record, keeping every event', () => {
    const big = envelope('org_a', 100, 20_000);
    const records = toRecords(big);
    expect(records.length).toBeGreaterThan(1);
    const events = records.flatMap(
      (r) => (JSON.parse(Buffer.from(r.Data!).toString()) as EventEnvelope).events,
    );
    expect(events.map((e) => e.eventId)).toEqual(big.events.map((e) => e.eventId));
    for (const r of records) expect(r.Data!.byteLength).toBeLessThanOrEqual(MAX_RECORD_BYTES);
  });
});
