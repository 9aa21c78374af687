/**
 * The CloudWatch reader with the real `@aws-sdk/client-cloudwatch`: against a recorded real-format
 * GetMetricData answer (what the SDK sends, paging, batching, errors), and end to end against the fake
 * Bedrock, whose CloudWatch stand-in counts the calls the official Bedrock Runtime client made.
 */
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import getMetricData from '../../core/reconciliation/fixtures/cloudwatch-get-metric-data.json';
import { startMockBedrock, type MockBedrock } from '../../local/mock-providers';
import { BedrockMetricsError, cloudWatchBedrockMetrics } from './bedrock-metrics-reader';

const HAIKU_US = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
const NOVA_PRO_US = 'us.amazon.nova-pro-v1:0';
const GPT_54 = 'openai.gpt-5.4';
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

interface Seen {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A CloudWatch endpoint answering with `answer(operation, body)`; records every request. */
async function cloudWatchServer(answer: (op: string, body: Record<string, unknown>) => [number, unknown]) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      seen.push({ headers: req.headers, body });
      const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const [status, out] = answer(op, body);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    seen,
    reader: cloudWatchBedrockMetrics({
      clientFor: (region) =>
        new CloudWatchClient({ region, endpoint: url, credentials: CREDENTIALS, maxAttempts: 1 }),
    }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const listed = (ids: string[]) => ({
  Metrics: ids.flatMap((id) => [
    { Namespace: 'AWS/Bedrock', MetricName: 'InputTokenCount', Dimensions: [{ Name: 'ModelId', Value: id }] },
    {
      Namespace: 'AWS/Bedrock',
      MetricName: 'OutputTokenCount',
      Dimensions: [{ Name: 'ModelId', Value: id }],
    },
  ]),
});

describe('the CloudWatch reader (recorded real-format answers)', () => {
  it('lists model ids, asks GetMetricData for one-day Sums, follows NextToken, and folds per day and model', async () => {
    const results = getMetricData.MetricDataResults;
    const cw = await cloudWatchServer((op, body) => {
      if (op === 'ListMetrics') {
        return body.NextToken === undefined
          ? [200, { ...listed([HAIKU_US]), NextToken: 'p2' }]
          : [
              200,
              {
                Metrics: [
                  ...listed([NOVA_PRO_US, GPT_54]).Metrics,
                  // Another dimension set of the namespace: not a per-model series, never summed twice.
                  { Namespace: 'AWS/Bedrock', MetricName: 'InputTokenCount', Dimensions: [] },
                ],
              },
            ];
      }
      // Model ids are queried in sorted order: GPT (m0), Nova (m1), Haiku (m2); the fixture's ids map
      // m0 → Haiku, m1 → Nova, m2 → GPT, so rename them to the reader's.
      const rename: Record<string, string> = { m0: 'm2', m1: 'm1', m2: 'm0' };
      const mapped = results.map((r) => ({ ...r, Id: `${rename[r.Id.slice(0, 2)]}${r.Id.slice(2)}` }));
      return body.NextToken === undefined
        ? [200, { MetricDataResults: mapped.slice(0, 5), Messages: [], NextToken: 'next' }]
        : [200, { MetricDataResults: mapped.slice(5), Messages: [] }];
    });
    try {
      const rows = await cw.reader.read('us-east-1', ['2026-11-20', '2026-11-21']);
      expect(
        rows.map((r) => [
          r.date,
          r.modelId,
          r.inputTokens,
          r.outputTokens,
          r.cacheReadTokens,
          r.cacheWriteTokens,
        ]),
      ).toEqual([
        ['2026-11-20', GPT_54, 20_000, 1_000, 8_000, 0],
        ['2026-11-20', HAIKU_US, 10_000, 2_000, 50_000, 4_000],
        ['2026-11-21', NOVA_PRO_US, 100_000, 10_000, 0, 0],
        ['2026-11-21', HAIKU_US, 1_000, 500, 0, 0],
      ]);
      const gets = cw.seen.filter(
        (s) => s.headers['x-amz-target'] === 'GraniteServiceVersion20100801.GetMetricData',
      );
      expect(gets).toHaveLength(2);
      expect(gets[1]?.body.NextToken).toBe('next');
      const first = gets[0] as Seen;
      expect(first.headers['content-type']).toBe('application/x-amz-json-1.0');
      expect(first.headers.authorization).toMatch(
        /Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/monitoring\/aws4_request/,
      );
      expect(first.body).toMatchObject({
        StartTime: Date.UTC(2026, 10, 20) / 1000,
        EndTime: Date.UTC(2026, 10, 22) / 1000,
        ScanBy: 'TimestampAscending',
      });
      expect((first.body.MetricDataQueries as unknown[])[0]).toEqual({
        Id: 'm0_0',
        MetricStat: {
          Metric: {
            Namespace: 'AWS/Bedrock',
            MetricName: 'InputTokenCount',
            Dimensions: [{ Name: 'ModelId', Value: GPT_54 }],
          },
          Period: 86_400,
          Stat: 'Sum',
        },
        ReturnData: true,
      });
      const lists = cw.seen.filter(
        (s) => s.headers['x-amz-target'] === 'GraniteServiceVersion20100801.ListMetrics',
      );
      expect(lists.map((l) => l.body)).toEqual([
        { Namespace: 'AWS/Bedrock', Dimensions: [{ Name: 'ModelId' }] },
        { Namespace: 'AWS/Bedrock', Dimensions: [{ Name: 'ModelId' }], NextToken: 'p2' },
      ]);
    } finally {
      await cw.close();
    }
  });

  it('sends at most 500 queries per GetMetricData call', async () => {
    const ids = Array.from({ length: 130 }, (_, i) => `amazon.model-${String(i).padStart(3, '0')}`);
    const cw = await cloudWatchServer((op) =>
      op === 'ListMetrics' ? [200, listed(ids)] : [200, { MetricDataResults: [], Messages: [] }],
    );
    try {
      expect(await cw.reader.read('eu-west-1', ['2026-11-21'])).toEqual([]);
      const sizes = cw.seen
        .filter((s) => s.body.MetricDataQueries !== undefined)
        .map((s) => (s.body.MetricDataQueries as unknown[]).length);
      expect(sizes).toEqual([500, 20]);
    } finally {
      await cw.close();
    }
  });

  it('a refused call is an error naming the region and operation only', async () => {
    const cw = await cloudWatchServer(() => [
      400,
      {
        __type: 'com.amazonaws.cloudwatch#AccessDenied',
        message: 'User: arn:aws:sts::123456789012:assumed-role/x is not authorized',
      },
    ]);
    try {
      const err = await cw.reader.read('us-west-2', ['2026-11-21']).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BedrockMetricsError);
      expect((err as Error).message).toMatch(/^bedrock: CloudWatch ListMetrics in us-west-2 failed \(\w+\)$/);
      expect((err as Error).message).not.toContain('123456789012');
    } finally {
      await cw.close();
    }
  });
});

describe('the CloudWatch reader against the fake Bedrock (end to end)', () => {
  let bedrock: MockBedrock;
  const NOW = Date.parse('2026-11-22T10:00:00.000Z');
  beforeAll(async () => {
    bedrock = await startMockBedrock({ now: () => NOW, cloudWatchPageSize: 3 });
  });
  afterAll(() => bedrock.close());

  it('counts the calls the Bedrock Runtime client made, per region the call was signed for', async () => {
    const signed = new BedrockRuntimeClient({
      region: 'us-west-2',
      endpoint: bedrock.url,
      credentials: CREDENTIALS,
    });
    const withKey = new BedrockRuntimeClient({
      region: 'us-west-2',
      endpoint: bedrock.url,
      token: { token: 'bedrock-api-key-example' },
      authSchemePreference: ['httpBearerAuth'],
    });
    const converse = (modelId: string, text: string, cache = false) =>
      new ConverseCommand({
        modelId,
        messages: [
          {
            role: 'user',
            content: [{ text }, ...(cache ? [{ cachePoint: { type: 'default' as const } }] : [])],
          },
        ],
      });
    const prefix = 'a long shared instruction block '.repeat(10);
    const a = await signed.send(converse(HAIKU_US, prefix, true));
    const b = await signed.send(converse(HAIKU_US, prefix, true));
    const c = await withKey.send(converse(NOVA_PRO_US, 'hello there'));
    signed.destroy();
    withKey.destroy();

    const reader = cloudWatchBedrockMetrics({
      clientFor: (region) =>
        new CloudWatchClient({ region, endpoint: bedrock.url, credentials: CREDENTIALS }),
    });
    const west = await reader.read('us-west-2', ['2026-11-21', '2026-11-22']);
    const east = await reader.read('us-east-1', ['2026-11-22']);
    const sum = (f: (u: NonNullable<typeof a.usage>) => number | undefined) =>
      [a, b].reduce((s, r) => s + (f(r.usage!) ?? 0), 0);
    expect(west).toEqual([
      {
        date: '2026-11-22',
        region: 'us-west-2',
        modelId: HAIKU_US,
        inputTokens: sum((u) => u.inputTokens),
        outputTokens: sum((u) => u.outputTokens),
        cacheReadTokens: sum((u) => u.cacheReadInputTokens),
        cacheWriteTokens: sum((u) => u.cacheWriteInputTokens),
      },
    ]);
    expect(west[0]!.cacheReadTokens).toBeGreaterThan(0);
    expect(west[0]!.cacheWriteTokens).toBeGreaterThan(0);
    // A Bedrock API key names no region: the fake counts it in its default region.
    expect(east).toEqual([
      {
        date: '2026-11-22',
        region: 'us-east-1',
        modelId: NOVA_PRO_US,
        inputTokens: c.usage!.inputTokens,
        outputTokens: c.usage!.outputTokens,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
    ]);
  });
});
