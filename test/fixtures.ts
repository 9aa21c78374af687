import type { KinesisStreamEvent } from 'aws-lambda';
import type { EventEnvelope, TelemetryEvent } from '../core/events/telemetry-event';

/** A telemetry event with sensible defaults (tests override what they exercise). */
export function telemetryEvent(overrides: Partial<TelemetryEvent> = {}): TelemetryEvent {
  return {
    eventId: 'evt_1',
    ts: Date.parse('2026-11-22T10:00:00.000Z'),
    source: 'ingest',
    kind: 'call',
    provider: 'openai',
    model: 'gpt-4o',
    inputTokens: 1000,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 500,
    reasoningTokens: 0,
    serviceTier: null,
    estimated: false,
    clientCostUsd: null,
    providerCostUsd: null,
    latencyMs: 120,
    statusCode: 200,
    projectId: 'proj',
    environment: 'production',
    featureId: 'chat',
    sessionId: null,
    fingerprint: null,
    endpoint: null,
    stream: null,
    verified: true,
    ...overrides,
  };
}

/** A Kinesis batch as Lambda delivers it, one record per envelope, with the given sequence numbers. */
export function kinesisBatch(records: Array<{ seq: string; envelope: EventEnvelope }>): KinesisStreamEvent {
  return {
    Records: records.map(({ seq, envelope }) => ({
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `shardId-000000000000:${seq}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: 'arn:aws:iam::000000000000:role/test',
      awsRegion: 'us-east-1',
      eventSourceARN: 'arn:aws:kinesis:us-east-1:000000000000:stream/test',
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: envelope.orgId,
        sequenceNumber: seq,
        approximateArrivalTimestamp: 0,
        data: Buffer.from(JSON.stringify(envelope)).toString('base64'),
      },
    })),
  };
}

export function envelopeOf(orgId: string, events: TelemetryEvent[], keyId = 'key1'): EventEnvelope {
  return { v: 1, orgId, keyId, receivedAt: 0, events };
}
