import fc from 'fast-check';
import { BEDROCK_REGION, bedrockTarget } from './bedrock-route';
import { toBedrockError } from './bedrock-refusal';
import { callShapeOf } from '../../core/admission/call-shape';
import { bedrockRequestShape } from '../../core/providers/request-shape/bedrock';
import { fingerprintOfRequest } from './request-info';

describe('bedrockTarget', () => {
  it.each([
    [
      '/bedrock/us-east-1/model/x/converse',
      'https://bedrock-runtime.us-east-1.amazonaws.com',
      '/model/x/converse',
    ],
    [
      '/bedrock/eu-central-2/openai/v1/chat/completions',
      'https://bedrock-runtime.eu-central-2.amazonaws.com',
      '/openai/v1/chat/completions',
    ],
    [
      '/bedrock/us-gov-west-1/model/y/invoke?x=1',
      'https://bedrock-runtime.us-gov-west-1.amazonaws.com',
      '/model/y/invoke?x=1',
    ],
    ['/bedrock-mantle/us-west-2/v1/responses', 'https://bedrock-mantle.us-west-2.api.aws', '/v1/responses'],
  ])('%s', (url, base, rest) => {
    expect(bedrockTarget(url)).toEqual({ base, rest });
  });

  it('an override serves every region (the region segment is dropped)', () => {
    expect(bedrockTarget('/bedrock/ap-south-1/model/x/converse', { bedrock: 'http://127.0.0.1:9/' })).toEqual(
      {
        base: 'http://127.0.0.1:9',
        rest: '/model/x/converse',
      },
    );
    expect(
      bedrockTarget('/bedrock-mantle/ap-south-1/v1/x', {
        bedrock: 'http://a:1',
        bedrock_mantle: 'http://b:2',
      }),
    ).toEqual({ base: 'http://b:2', rest: '/v1/x' });
    expect(bedrockTarget('/bedrock-mantle/ap-south-1/v1/x', { bedrock: 'http://127.0.0.1:9' })).toEqual({
      base: 'http://127.0.0.1:9',
      rest: '/v1/x',
    });
  });

  it.each([
    'evil.com',
    'us-east-1.evil.com',
    'us-east-1@evil',
    'US-EAST-1',
    'us-east-',
    '127.0.0.1',
    'us-east-1%2F',
    '',
  ])('refuses region %p', (region) => {
    expect(bedrockTarget(`/bedrock/${region}/model/x/converse`)).toEqual({ error: expect.any(String) });
  });

  it('property: every accepted region yields exactly the AWS host of that region (no other host is reachable)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (region) => {
        fc.pre(!region.includes('/') && !region.includes('?'));
        const t = bedrockTarget(`/bedrock/${region}/model/x/converse`);
        if (t !== undefined && 'base' in t) {
          expect(new URL(t.base).hostname).toBe(`bedrock-runtime.${region}.amazonaws.com`);
          expect(BEDROCK_REGION.test(region)).toBe(true);
        } else expect(BEDROCK_REGION.test(region)).toBe(false);
      }),
    );
    // and generated valid regions reach the boundary of the pattern
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{2}(-[a-z]{1,9}){1,2}-\d$/), (region) => {
        const t = bedrockTarget(`/bedrock/${region}/model/x/converse`);
        expect(t !== undefined && 'base' in t && new URL(t.base).hostname).toBe(
          `bedrock-runtime.${region}.amazonaws.com`,
        );
      }),
    );
  });
});

describe('toBedrockError: refusals the AWS SDK does not retry', () => {
  const body = (code: string) => JSON.stringify({ error: { message: `refused: ${code}`, type: 'x', code } });
  it.each([
    [429, 400, 'ServiceQuotaExceededException'],
    [401, 403, 'AccessDeniedException'],
    [403, 403, 'AccessDeniedException'],
    [404, 404, 'ResourceNotFoundException'],
    [413, 400, 'ValidationException'],
    [400, 400, 'ValidationException'],
  ])('%i → %i %s', (status, aws, type) => {
    const r = toBedrockError({
      status,
      headers: { 'retry-after': '30', 'content-length': '1' },
      body: body('budget_daily_hard'),
    });
    expect(r.status).toBe(aws);
    expect(r.headers['x-amzn-errortype']).toBe(type);
    expect(r.headers['x-spendguard-error-code']).toBe('budget_daily_hard');
    expect(JSON.parse(r.body)).toEqual({ message: 'refused: budget_daily_hard' });
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.body)));
  });

  it('property: no refusal comes out with a status or type the AWS SDK retries', () => {
    const RETRIED_STATUS = [429, 500, 502, 503, 504];
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 499 }), fc.string(), (status, text) => {
        const r = toBedrockError({ status, headers: {}, body: text });
        expect(RETRIED_STATUS).not.toContain(r.status);
        expect(r.headers['x-amzn-errortype']).not.toMatch(/Throttl|TooManyRequests|Timeout/);
        expect(() => JSON.parse(r.body) as unknown).not.toThrow();
      }),
    );
  });

  it('a retryable refusal (budget_busy: room held by calls in flight) stays retryable: 429 ThrottlingException', () => {
    const r = toBedrockError({
      status: 429,
      headers: { 'retry-after': '2', 'x-should-retry': 'true' },
      body: JSON.stringify({
        error: { message: 'Budget busy…', type: 'budget_busy', code: 'budget_daily_held' },
      }),
    });
    expect(r.status).toBe(429);
    expect(r.headers['x-amzn-errortype']).toBe('ThrottlingException');
    expect(r.headers['retry-after']).toBe('2');
    expect(r.headers['x-spendguard-error-code']).toBe('budget_daily_held');
    // The final refusal of the same call, once nothing is in flight, is not retried.
    const final = toBedrockError({
      status: 429,
      headers: { 'retry-after': '3600', 'x-should-retry': 'false' },
      body: JSON.stringify({ error: { message: 'Budget Exceeded…', type: 'budget_exceeded' } }),
    });
    expect(final).toMatchObject({
      status: 400,
      headers: { 'x-amzn-errortype': 'ServiceQuotaExceededException' },
    });
  });

  it('a 5xx of the relay (key store unavailable) stays retryable', () => {
    const r = { status: 503, headers: { 'retry-after': '1' }, body: '{}' };
    expect(toBedrockError(r)).toBe(r);
  });
});

describe('what the relay reads from a Bedrock request', () => {
  const body = Buffer.from(
    '{"messages":[{"role":"user","content":[{"text":"hi"}]}],"inferenceConfig":{"maxTokens":9}}',
  );
  it('the model is the path’s (URL-decoded), for admission and the event', () => {
    const read = callShapeOf(body, '/model/us.amazon.nova-pro-v1%3A0/converse', bedrockRequestShape);
    expect(read.ok && read.shape).toMatchObject({ model: 'us.amazon.nova-pro-v1:0', outputTokens: 9 });
  });
  it('the fingerprint covers the model of the path: the same prompt to two models differs, sampling does not count', () => {
    const a = fingerprintOfRequest('anthropic', body, '/model/us.amazon.nova-pro-v1%3A0/converse');
    const b = fingerprintOfRequest('anthropic', body, '/model/us.amazon.nova-lite-v1%3A0/converse');
    const c = fingerprintOfRequest(
      'anthropic',
      Buffer.from(
        '{"messages":[{"role":"user","content":[{"text":"hi"}]}],"inferenceConfig":{"maxTokens":500}}',
      ),
      '/model/us.amazon.nova-pro-v1%3A0/converse',
    );
    expect(a).toMatch(/^sha256:/);
    expect(a).not.toBe(b);
    expect(c).toBe(a);
  });
});
