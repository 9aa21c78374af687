import { randomBytes } from 'node:crypto';
import type { CloudFrontRequestEvent, CloudFrontRequest, CloudFrontResultResponse } from 'aws-lambda';
import { flagKeyFor, generateApiKey } from '../../core/keys';
import { sessionFlagItemKey } from '../shared/flag-item-keys';
import { createOriginRequestHandler, toCloudFrontResponse } from './cloudfront-adapter';
import {
  bakedConfig,
  EdgeConfigError,
  esbuildDefineFor,
  parseEdgeGuardConfig,
  replicaRegionFor,
} from './config';
import { MISSING_KEY_RESPONSE } from './decide';
import { EdgeGuard } from './guard';
import { EmfMetrics, MemoryMetrics } from './metrics';

const PEPPER = 'pepper-for-adapter-tests-0123456789abcdef';

function originRequest(headers: Record<string, string>): CloudFrontRequestEvent {
  const request: CloudFrontRequest = {
    clientIp: '203.0.113.9',
    method: 'POST',
    uri: '/openai/v1/chat/completions',
    querystring: '',
    headers: Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [{ key: k, value: v }]]),
    ),
  };
  return {
    Records: [
      {
        cf: {
          config: {
            distributionDomainName: 'd1.cloudfront.net',
            distributionId: 'E1',
            eventType: 'origin-request',
            requestId: 'r',
          },
          request,
        },
      },
    ],
  };
}

describe('CloudFront origin-request adapter', () => {
  const key = generateApiKey((n) => randomBytes(n));
  const flagKey = flagKeyFor(key.prefix, PEPPER);

  it('returns the request unchanged when the guard forwards', async () => {
    const guard = new EdgeGuard({ flags: { getMany: async () => [] }, pepper: async () => PEPPER });
    const event = originRequest({ 'Service-API-Key': key.apiKey, Authorization: 'Bearer sk-x' });
    const before = JSON.stringify(event.Records[0]?.cf.request);
    const result = await createOriginRequestHandler(() => guard)(event);
    expect(result).toBe(event.Records[0]?.cf.request);
    expect(JSON.stringify(result)).toBe(before);
  });

  it('generates the 429 response in CloudFront form for a SUSPENDED key', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 120;
    const guard = new EdgeGuard({
      flags: {
        getMany: async (keys) =>
          keys.includes(flagKey)
            ? [
                {
                  flagKey,
                  orgId: 'org_a',
                  scope: 'key',
                  keyId: key.publicId,
                  sessionId: null,
                  state: 'SUSPENDED',
                  triggerType: 'hard_cap_daily',
                  observedValue: 1,
                  thresholdValue: 1,
                  mode: 'hard_stop',
                  setAt: '',
                  expiresAt,
                },
              ]
            : [],
      },
      pepper: async () => PEPPER,
    });
    const result = (await createOriginRequestHandler(() => guard)(
      originRequest({ 'Service-API-Key': key.apiKey }),
    )) as CloudFrontResultResponse;
    expect(result.status).toBe('429');
    expect(result.statusDescription).toBe('Too Many Requests');
    expect(result.headers?.['retry-after']?.[0]?.key).toBe('Retry-After');
    expect(Number(result.headers?.['retry-after']?.[0]?.value)).toBeGreaterThanOrEqual(119);
    expect(result.headers?.['x-should-retry']).toEqual([{ key: 'x-should-retry', value: 'false' }]);
    expect(result.headers?.['content-type']).toEqual([{ key: 'Content-Type', value: 'application/json' }]);
    expect(JSON.parse(result.body ?? '')).toMatchObject({
      error: { type: 'budget_exceeded', code: 'hard_cap_daily' },
    });
  });

  it('refuses repeated x-spendguard-session headers with 400, before any flag read (issue 19.6)', async () => {
    let reads = 0;
    const guard = new EdgeGuard({
      flags: { getMany: async () => (reads++, []) },
      pepper: async () => PEPPER,
    });
    const handler = createOriginRequestHandler(() => guard);
    const twice = originRequest({ 'Service-API-Key': key.apiKey });
    const request = twice.Records[0]!.cf.request;
    request.headers['x-spendguard-session'] = [
      { key: 'X-Spendguard-Session', value: 'a' },
      { key: 'X-Spendguard-Session', value: 'b' },
    ];
    const joined = originRequest({ 'Service-API-Key': key.apiKey, 'X-Spendguard-Session': 'a,b' });
    const single = originRequest({ 'Service-API-Key': key.apiKey, 'X-Spendguard-Session': 'a' });
    expect(((await handler(twice)) as CloudFrontResultResponse).status).toBe('400');
    expect(((await handler(joined)) as CloudFrontResultResponse).status).toBe('400');
    expect(reads).toBe(0);
    expect((await handler(single)) as CloudFrontRequest).toHaveProperty('uri');
  });

  it('passes x-spendguard-session to the guard: a session flag refuses that session only', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const sessionItem = sessionFlagItemKey(flagKey, 'agent-7');
    const asked: string[][] = [];
    const guard = new EdgeGuard({
      flags: {
        getMany: async (keys) => {
          asked.push([...keys]);
          return keys.includes(sessionItem)
            ? [
                {
                  flagKey: sessionItem,
                  orgId: 'org_a',
                  scope: 'session',
                  keyId: key.publicId,
                  sessionId: 'agent-7',
                  state: 'SUSPENDED',
                  triggerType: 'token_loop_identical',
                  observedValue: 4,
                  thresholdValue: 4,
                  mode: 'hard_stop',
                  setAt: '',
                  expiresAt,
                },
              ]
            : [];
        },
      },
      pepper: async () => PEPPER,
    });
    const handler = createOriginRequestHandler(() => guard);
    const looping = originRequest({ 'Service-API-Key': key.apiKey, 'X-Spendguard-Session': 'agent-7' });
    const other = originRequest({ 'Service-API-Key': key.apiKey, 'X-Spendguard-Session': 'agent-8' });
    const none = originRequest({ 'Service-API-Key': key.apiKey });

    const refused = (await handler(looping)) as CloudFrontResultResponse;
    expect(refused.status).toBe('429');
    expect(JSON.parse(refused.body ?? '')).toMatchObject({
      error: { type: 'budget_exceeded', code: 'token_loop_identical' },
    });
    expect(await handler(other)).toBe(other.Records[0]?.cf.request);
    expect(await handler(none)).toBe(none.Records[0]?.cf.request);
    // One read per (key, session): key, organization and (when named) session items together.
    expect(asked).toEqual([
      [flagKey, `${flagKey}#org`, sessionItem],
      [flagKey, `${flagKey}#org`, sessionFlagItemKey(flagKey, 'agent-8')],
      [flagKey, `${flagKey}#org`],
    ]);
  });

  it('answers 401 without the header', async () => {
    const guard = new EdgeGuard({ flags: { getMany: async () => [] }, pepper: async () => PEPPER });
    const result = await createOriginRequestHandler(() => guard)(originRequest({}));
    expect(result).toEqual(toCloudFrontResponse(MISSING_KEY_RESPONSE));
  });

  it('forwards and counts a fail-open when the baked config is missing', async () => {
    const metrics = new MemoryMetrics();
    const event = originRequest({ 'Service-API-Key': key.apiKey });
    const result = await createOriginRequestHandler(() => bakedConfig() as never, metrics)(event);
    expect(result).toBe(event.Records[0]?.cf.request);
    expect(metrics.get('GuardFailOpen', { Reason: 'config_error' })).toBe(1);
  });
});

describe('baked-in config', () => {
  const base = {
    flagsTableName: 'Flags',
    replicaRegions: { 'eu-west-3': 'eu-west-1', 'ap-northeast-3': 'ap-northeast-1' },
    homeRegion: 'us-east-1',
    pepperSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:pepper',
  };

  it('fills the defaults and maps edge regions to replicas', () => {
    const c = parseEdgeGuardConfig(base);
    expect(c).toMatchObject({ pepperSecretRegion: 'us-east-1', cacheTtlMs: 1000, lookupTimeoutMs: 1000 });
    expect(c.throttle).toEqual({ capacity: 1, refillIntervalMs: 6000 });
    expect(replicaRegionFor('eu-west-3', c)).toBe('eu-west-1');
    expect(replicaRegionFor('sa-east-1', c)).toBe('us-east-1');
    expect(replicaRegionFor(undefined, c)).toBe('us-east-1');
  });

  it('produces an esbuild define whose value is the JSON of the full config', () => {
    const define = esbuildDefineFor({ ...base, cacheTtlMs: 500 });
    expect(Object.keys(define)).toEqual(['__SPENDGUARD_CONFIG__']);
    expect(JSON.parse(define.__SPENDGUARD_CONFIG__ ?? '')).toMatchObject({
      cacheTtlMs: 500,
      flagsTableName: 'Flags',
    });
  });

  it('refuses a missing or invalid config', () => {
    expect(() => bakedConfig()).toThrow(EdgeConfigError);
    expect(() => parseEdgeGuardConfig({ ...base, flagsTableName: '' })).toThrow(/flagsTableName/);
    expect(() => parseEdgeGuardConfig({ ...base, cacheTtlMs: -1 })).toThrow(/cacheTtlMs/);
  });
});

describe('EmfMetrics', () => {
  it('writes one Embedded Metric Format line per count', () => {
    const lines: string[] = [];
    new EmfMetrics({ service: 'edge-guard', write: (l) => lines.push(l), now: () => 1 }).count(
      'GuardFailOpen',
      {
        Reason: 'store_error',
      },
    );
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      _aws: {
        Timestamp: 1,
        CloudWatchMetrics: [
          {
            Namespace: 'Spendguard',
            Dimensions: [['Service', 'Reason']],
            Metrics: [{ Name: 'GuardFailOpen', Unit: 'Count' }],
          },
        ],
      },
      Service: 'edge-guard',
      Reason: 'store_error',
      GuardFailOpen: 1,
    });
  });
});

describe('CloudFront origin-request adapter on Bedrock routes', () => {
  it('a refusal on /bedrock/… is shaped for the AWS SDK (400 ServiceQuotaExceededException, never a 429)', async () => {
    const guard = new EdgeGuard({ flags: { getMany: async () => [] }, pepper: async () => PEPPER });
    const event = originRequest({}); // no Service-API-Key: the guard refuses (401)
    event.Records[0]!.cf.request.uri = '/bedrock/us-east-1/model/us.amazon.nova-pro-v1%3A0/converse';
    const result = (await createOriginRequestHandler(() => guard)(event)) as CloudFrontResultResponse;
    expect(result.status).toBe('403');
    expect(result.headers?.['x-amzn-errortype']?.[0]).toEqual({
      key: 'x-amzn-ErrorType',
      value: 'AccessDeniedException',
    });
    expect(JSON.parse(result.body ?? '')).toEqual({ message: expect.any(String) });
  });
});
