/**
 * The proxy on the local stand-ins: flags and keys in dynalite through the real DynamoDB stores, events
 * on kinesalite through the real Kinesis sink, the kill flag written by the shared enforcement code.
 */
import { randomBytes } from 'node:crypto';
import { GetRecordsCommand, GetShardIteratorCommand, ListShardsCommand } from '@aws-sdk/client-kinesis';
import OpenAI from 'openai';
import { eventEnvelopeSchema, type EventEnvelope } from '../../core/events/telemetry-event';
import { generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryMetrics } from '../../lambdas/edge-guard/metrics';
import { pushFlag } from '../../lambdas/shared/enforcement';
import { KinesisEventSink } from '../../lambdas/shared/event-sink';
import { DynamoApiKeyStore } from '../../lambdas/shared/stores/api-key-store';
import { DynamoFlagStore } from '../../lambdas/shared/stores/flag-store';
import { LOCAL_RESOURCE_NAMES } from '../../lambdas/shared/table-definitions';
import { startMockProviders, type MockProviders } from '../mock-providers';
import {
  createLocalAwsClients,
  provisionLocalResources,
  startStandIns,
  type LocalAwsClients,
  type StandIns,
} from '../runtime';
import { createLocalProxy, type LocalProxy } from './local-proxy';

const PEPPER = 'stand-ins-pepper-0123456789abcdef01234567';

let standIns: StandIns;
let clients: LocalAwsClients;
let mock: MockProviders;
let proxy: LocalProxy;
let keys: DynamoApiKeyStore;
let flags: DynamoFlagStore;
const metrics = new MemoryMetrics();

beforeAll(async () => {
  standIns = await startStandIns({ memory: true });
  clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  keys = new DynamoApiKeyStore({ doc: clients.documentClient, tableName: LOCAL_RESOURCE_NAMES.dataTable });
  flags = new DynamoFlagStore({ doc: clients.documentClient, tableName: LOCAL_RESOURCE_NAMES.flagsTable });
  mock = await startMockProviders({ port: 0 });
  proxy = await createLocalProxy({
    port: 0,
    flags,
    apiKeys: keys,
    sink: new KinesisEventSink({ client: clients.kinesis, streamName: LOCAL_RESOURCE_NAMES.eventsStream }),
    pepper: PEPPER,
    upstreams: mock.baseUrls,
    metrics,
    flagCacheTtlMs: 100,
  });
});

afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  clients?.destroy();
  await standIns?.close();
});

async function createKey(orgId: string) {
  const k = generateApiKey((n) => randomBytes(n));
  await keys.create({
    publicId: k.publicId,
    orgId,
    prefix: k.prefix,
    hash: hashApiKey(k.apiKey, PEPPER),
    name: 't',
    createdAt: new Date().toISOString(),
    revokedAt: null,
  });
  return k;
}

async function streamEnvelopes(): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = [];
  const { Shards = [] } = await clients.kinesis.send(
    new ListShardsCommand({ StreamName: LOCAL_RESOURCE_NAMES.eventsStream }),
  );
  for (const shard of Shards) {
    const it = await clients.kinesis.send(
      new GetShardIteratorCommand({
        StreamName: LOCAL_RESOURCE_NAMES.eventsStream,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    const recs = await clients.kinesis.send(new GetRecordsCommand({ ShardIterator: it.ShardIterator }));
    for (const r of recs.Records ?? [])
      out.push(eventEnvelopeSchema.parse(JSON.parse(Buffer.from(r.Data ?? []).toString('utf8'))));
  }
  return out;
}

it('puts one event per call on the stream and enforces a flag pushed by the enforcement code', async () => {
  // Prepare
  const key = await createKey('org_standins');
  const client = new OpenAI({
    apiKey: 'sk-x',
    baseURL: `${proxy.url}/openai/v1`,
    defaultHeaders: { 'Service-API-Key': key.apiKey },
  });
  // Act: one call through, then a kill flag, then a blocked call
  const ok = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'abcdefgh' }],
    max_tokens: 3,
  });
  await proxy.idle();
  await pushFlag(
    { keys, flags, pepper: PEPPER },
    {
      orgId: 'org_standins',
      action: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
    },
    Date.now(),
  );
  await new Promise((r) => setTimeout(r, 150)); // the guard cache TTL in this test
  const blocked = await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  // Assess
  expect(ok.usage?.total_tokens).toBe(5);
  expect(blocked).toBeInstanceOf(OpenAI.RateLimitError);
  expect((blocked as InstanceType<typeof OpenAI.RateLimitError>).error).toMatchObject({
    type: 'budget_exceeded',
    code: 'token_loop_identical',
  });
  expect(mock.requests()).toHaveLength(1);
  const envelopes = (await streamEnvelopes()).filter((e) => e.orgId === 'org_standins');
  expect(envelopes).toHaveLength(1);
  expect(envelopes[0]).toMatchObject({
    keyId: key.publicId,
    events: [{ source: 'proxy', inputTokens: 2, outputTokens: 3, verified: true }],
  });
  expect(metrics.get('GuardFailOpen')).toBe(0);
});
