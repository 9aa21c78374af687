import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { createLambdaContext } from '../../../local/runtime';
import { ORIGIN_SECRET_HEADER } from '../../relay/headers';
import { json } from '../http';
import { ORIGIN_SECRET_REFRESH_INTERVAL_MS, ORIGIN_SECRET_RETRY_MS } from '../origin-check';
import type { VersionedSecretSource } from '../secrets';
import { httpErrorHandler } from './http-error-handler';
import { originVerify, originVerifyFromEnvironment } from './origin-verify';

const SECRET = 'Zq8wL1vN4tP0sR7kD2mF9hJ3cX6bV5nA8eT1yU4iO7pQ0rS3';
const ctx = createLambdaContext({ functionName: 'api' });
const logger = new Logger({ logLevel: 'SILENT' });

/** Versions of the origin secret as Secrets Manager would give them; `fail` makes reads throw. */
class FakeVersions implements VersionedSecretSource {
  values: readonly string[] = [SECRET];
  fail = false;
  reads = 0;
  accepted(): Promise<readonly string[]> {
    this.reads++;
    return this.fail ? Promise.reject(new Error('AccessDenied')) : Promise.resolve(this.values);
  }
}

function event(headers: Record<string, string>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'GET /v1/budget',
    rawPath: '/v1/budget',
    rawQueryString: '',
    headers,
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
  };
}

/** A handler wired as the AWS entries are: error mapping, then the origin check; counts its runs. */
function wired(source: VersionedSecretSource, clock: { now: number }, mode?: 'enforce' | 'report') {
  let served = 0;
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(() => {
    served++;
    return Promise.resolve(json(200, { ok: true }));
  })
    .use(httpErrorHandler(logger))
    .use(originVerify(source, new Metrics({ namespace: 'test' }), { mode, now: () => clock.now }));
  return {
    served: () => served,
    call: async (headers: Record<string, string>) => {
      const res = (await handler(event(headers), ctx)) as APIGatewayProxyStructuredResultV2;
      return {
        status: res.statusCode,
        headers: res.headers ?? {},
        body: JSON.parse(res.body ?? 'null') as unknown,
      };
    },
  };
}

describe('originVerify (the API behind its WAF distribution)', () => {
  it('serves a request that carries the origin secret CloudFront adds', async () => {
    const api = wired(new FakeVersions(), { now: 0 });
    const res = await api.call({ [ORIGIN_SECRET_HEADER]: SECRET });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    expect(api.served()).toBe(1);
  });

  it('refuses a call to the execute-api URL (no header) with a 403 JSON body, before the handler', async () => {
    const api = wired(new FakeVersions(), { now: 0 });
    const res = await api.call({ authorization: 'Bearer x', 'service-api-key': 'sg_live_x' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({
      error: {
        type: 'forbidden',
        code: 'origin_required',
        message: expect.stringContaining('CloudFront URL') as unknown,
      },
    });
    expect(api.served()).toBe(0);
  });

  it('refuses every header value but the secret itself (near misses included)', async () => {
    const source = new FakeVersions();
    const api = wired(source, { now: 0 });
    const nearMiss = fc.oneof(
      fc.string(),
      fc.constant(''),
      fc.constant(SECRET.slice(0, -1)),
      fc.constant(`${SECRET}x`),
      fc.constant(SECRET.toLowerCase()),
      fc.constant(` ${SECRET}`),
      fc
        .nat(SECRET.length - 1)
        .map((i) => SECRET.slice(0, i) + (SECRET[i] === 'a' ? 'b' : 'a') + SECRET.slice(i + 1)),
    );
    await fc.assert(
      fc.asyncProperty(nearMiss, async (value) => {
        fc.pre(value !== SECRET);
        const res = await api.call({ [ORIGIN_SECRET_HEADER]: value });
        expect(res.status).toBe(403);
      }),
      { numRuns: 200 },
    );
    expect(api.served()).toBe(0);
    // A stream of wrong headers re-reads the secret at most once per interval (the clock stood still).
    expect(source.reads).toBeLessThanOrEqual(2);
  });

  it('accepts the previous version during a rotation and the new one after it', async () => {
    const source = new FakeVersions();
    const clock = { now: 0 };
    const api = wired(source, clock);
    expect((await api.call({ [ORIGIN_SECRET_HEADER]: SECRET })).status).toBe(200);
    // put-secret-value: the new value is current, the old one previous; CloudFront still sends the old one.
    source.values = ['rotated-value-0123456789', SECRET];
    clock.now += ORIGIN_SECRET_REFRESH_INTERVAL_MS;
    expect((await api.call({ [ORIGIN_SECRET_HEADER]: 'rotated-value-0123456789' })).status).toBe(200);
    expect((await api.call({ [ORIGIN_SECRET_HEADER]: SECRET })).status).toBe(200);
  });

  it('fails closed while the secret cannot be read (503 with Retry-After), and recovers', async () => {
    const source = new FakeVersions();
    source.fail = true;
    const clock = { now: 0 };
    const api = wired(source, clock);
    const res = await api.call({ [ORIGIN_SECRET_HEADER]: SECRET });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toMatchObject({ error: { code: 'unavailable' } });
    expect(api.served()).toBe(0);
    source.fail = false;
    clock.now += ORIGIN_SECRET_RETRY_MS;
    expect((await api.call({ [ORIGIN_SECRET_HEADER]: SECRET })).status).toBe(200);
  });

  it('in report mode (an upgrade) serves requests without the header or with the secret unreadable', async () => {
    const source = new FakeVersions();
    const api = wired(source, { now: 0 }, 'report');
    expect((await api.call({})).status).toBe(200);
    expect((await api.call({ [ORIGIN_SECRET_HEADER]: 'wrong' })).status).toBe(200);
    source.fail = true;
    expect((await wired(source, { now: 0 }, 'report').call({})).status).toBe(200);
    expect(api.served()).toBe(2);
  });

  it('adds no check without ORIGIN_SECRET_ARN (WAF off; the local stack never sets it), else one in the set mode', async () => {
    const saved = process.env.ORIGIN_SECRET_ARN;
    delete process.env.ORIGIN_SECRET_ARN;
    try {
      expect(originVerifyFromEnvironment(new Metrics({ namespace: 'test' }))).toEqual({});
      process.env.ORIGIN_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:origin-AbCdEf';
      expect(originVerifyFromEnvironment(new Metrics({ namespace: 'test' })).before).toBeInstanceOf(Function);
      // The mode comes from ORIGIN_CHECK_MODE: a request without the header is served only in `report`.
      const call = async () => {
        const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(() =>
          Promise.resolve(json(200, { ok: true })),
        )
          .use(httpErrorHandler(logger))
          .use(originVerifyFromEnvironment(new Metrics({ namespace: 'test' })));
        return ((await handler(event({}), ctx)) as APIGatewayProxyStructuredResultV2).statusCode;
      };
      process.env.ORIGIN_CHECK_MODE = 'report';
      expect(await call()).toBe(200);
    } finally {
      delete process.env.ORIGIN_CHECK_MODE;
      if (saved === undefined) delete process.env.ORIGIN_SECRET_ARN;
      else process.env.ORIGIN_SECRET_ARN = saved;
    }
  });
});
