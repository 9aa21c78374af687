import { clientResponseHeaders, upstreamRequestHeaders } from './headers';

describe('header filtering', () => {
  it('forwards the client headers except Spendguard, hop-by-hop and front-door ones', () => {
    const out = upstreamRequestHeaders({
      authorization: 'Bearer sk-proj-abc',
      'x-api-key': 'sk-ant-xyz',
      'anthropic-version': '2023-06-01',
      'openai-organization': 'org-1',
      'content-type': 'application/json',
      'accept-encoding': 'gzip, br',
      'user-agent': 'OpenAI/JS 6.0',
      'x-stainless-retry-count': '0',
      'service-api-key': 'abn_secret',
      'x-spendguard-origin-secret': 's3cr3t',
      'x-spendguard-session': 'sess-1',
      host: 'proxy.example.com',
      'content-length': '123',
      connection: 'keep-alive, x-custom-hop',
      'x-custom-hop': 'dropped because Connection lists it',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      te: 'trailers',
      upgrade: 'h2c',
      via: '1.1 abc.cloudfront.net (CloudFront)',
      'x-forwarded-for': '203.0.113.9',
      'x-amz-cf-id': 'abc==',
      'x-amzn-trace-id': 'Root=1-…',
      'cloudfront-viewer-country': 'FR',
      cookie: ['a=1', 'b=2'] as unknown as string,
    });
    expect(out).toEqual({
      authorization: 'Bearer sk-proj-abc',
      'x-api-key': 'sk-ant-xyz',
      'anthropic-version': '2023-06-01',
      'openai-organization': 'org-1',
      'content-type': 'application/json',
      'accept-encoding': 'gzip, br',
      'user-agent': 'OpenAI/JS 6.0',
      'x-stainless-retry-count': '0',
      cookie: ['a=1', 'b=2'],
    });
  });

  it('passes provider response headers through minus hop-by-hop; content-length only when kept', () => {
    const up = {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': '42',
      'x-request-id': 'req_1',
      'openai-processing-ms': '12',
      'set-cookie': ['__cf_bm=x', '_cfuvid=y'],
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
    };
    expect(clientResponseHeaders(up, true)).toEqual({
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': '42',
      'x-request-id': 'req_1',
      'openai-processing-ms': '12',
      'set-cookie': ['__cf_bm=x', '_cfuvid=y'],
    });
    expect(clientResponseHeaders(up, false)['content-length']).toBeUndefined();
  });
});
