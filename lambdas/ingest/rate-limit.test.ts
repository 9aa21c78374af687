/**
 * Issue 15.11 (per-key ingest rate limits): one key's flood is refused with 429 + Retry-After, while
 * every other key, of the same organization or another, is served as before.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLambdaContext } from '../../local/runtime';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import type { EventSink } from '../shared/event-sink';
import { createIngestHandler, INGEST_RATE_LIMIT } from './handler';

let h: BackendHarness;
const sink: EventSink = { put: async () => undefined };
const T0 = Date.parse('2026-11-22T10:00:00.000Z');

beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

function request(path: '/api/ingest' | '/v1/events', apiKey: string): APIGatewayProxyEventV2 {
  const ingestEvent = { model: 'gpt-4o', usage: { prompt_tokens: 10, completion_tokens: 5 } };
  const clientEvent = {
    id: crypto.randomUUID(),
    timestamp: '2026-11-22T10:00:00.000Z',
    provider: 'openai',
    model: 'gpt-4o',
    promptTokens: 10,
    completionTokens: 5,
    totalTokens: 15,
    estimatedCostUsd: 0.0001,
    costSource: 'PROVIDER_REGISTRY',
    latencyMs: 100,
    statusCode: 200,
  };
  return {
    version: '2.0',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'service-api-key': apiKey },
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body: JSON.stringify(
      path === '/api/ingest' ? { apiKey, events: [ingestEvent] } : { events: [clientEvent] },
    ),
    isBase64Encoded: false,
  };
}

describe('per-key ingest rate limit (issue 15.11)', () => {
  it.each(['/api/ingest', '/v1/events'] as const)(
    '%s: a flood from one key gets 429 with Retry-After; other keys are served meanwhile',
    async (path) => {
      h.setNow(T0);
      const org = `org_rl${path.length}`;
      const flooder = (await h.createKey(org, 'flood')).apiKey;
      const sameOrg = (await h.createKey(org, 'quiet')).apiKey;
      const otherOrg = (await h.createKey(`${org}_other`)).apiKey;
      // One handler = one container: its buckets persist across requests.
      const handler = createIngestHandler({
        services: { ...h.services, sink },
        logger: h.logger,
        metrics: h.metrics,
      });
      const call = async (key: string) =>
        (await handler(
          request(path, key),
          createLambdaContext({ functionName: 'ingest' }),
        )) as APIGatewayProxyStructuredResultV2;

      const statuses: number[] = [];
      for (let i = 0; i < INGEST_RATE_LIMIT.burst + 30; i++)
        statuses.push((await call(flooder)).statusCode ?? 0);
      expect(statuses.slice(0, INGEST_RATE_LIMIT.burst).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(INGEST_RATE_LIMIT.burst).every((s) => s === 429)).toBe(true);

      const refused = await call(flooder);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers?.['retry-after']).toBe('1');
      expect(JSON.parse(refused.body ?? '{}')).toEqual({
        error: { code: 'rate_limited', message: expect.stringContaining('per second') },
      });

      // Still within the same instant: the other keys are untouched by the flood.
      expect((await call(sameOrg)).statusCode).toBe(200);
      expect((await call(otherOrg)).statusCode).toBe(200);

      // A second later the flooder has earned perSecond requests again.
      h.setNow(T0 + 1000);
      const after: number[] = [];
      for (let i = 0; i < INGEST_RATE_LIMIT.perSecond + 1; i++)
        after.push((await call(flooder)).statusCode ?? 0);
      expect(after.filter((s) => s === 200)).toHaveLength(INGEST_RATE_LIMIT.perSecond);
      expect(after.at(-1)).toBe(429);
    },
  );
});
