import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Context, LambdaFunctionURLEvent } from 'aws-lambda';
import { generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryApiKeyStore, MemoryEventSink } from '../../local/proxy/memory-stores';
import { startMockProviders, type MockProviders } from '../../local/mock-providers';
import { MemoryMetrics } from '../edge-guard/metrics';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import {
  createStreamingHandler,
  type AwsLambdaRuntime,
  type HttpResponseMetadata,
  type LambdaResponseStream,
} from './lambda-adapter';
import { Relay, type RelayResponder } from './relay';

const PEPPER = 'relay-test-pepper-0123456789abcdef0123';

/** Collects a response in memory. */
class Collected extends EventEmitter implements LambdaResponseStream {
  status = 0;
  headers: Record<string, string | string[]> = {};
  chunks: Buffer[] = [];
  ended = false;
  destroyed = false;
  writableFinished = false;
  write(chunk: Buffer): boolean {
    this.chunks.push(Buffer.from(chunk));
    return true;
  }
  end(chunk?: Buffer | string): void {
    if (chunk !== undefined) this.chunks.push(Buffer.from(chunk));
    this.ended = true;
    this.writableFinished = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
  responder(keepsContentLength = true): RelayResponder {
    return {
      keepsContentLength,
      start: (status, headers) => {
        this.status = status;
        this.headers = headers;
        return this;
      },
    };
  }
}

let mock: MockProviders;
let keys: MemoryApiKeyStore;
let sink: MemoryEventSink;
let metrics: MemoryMetrics;
let apiKey: string;
let publicId: string;
let relay: Relay;

function newRelay(extra: Partial<ConstructorParameters<typeof Relay>[0]> = {}): Relay {
  return new Relay({
    keys: new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER }),
    sink,
    metrics,
    upstreams: mock.baseUrls,
    ...extra,
  });
}

beforeAll(async () => {
  mock = await startMockProviders({ port: 0 });
});
afterAll(() => mock.close());
beforeEach(async () => {
  mock.reset();
  keys = new MemoryApiKeyStore();
  sink = new MemoryEventSink();
  metrics = new MemoryMetrics();
  const k = generateApiKey((n) => randomBytes(n));
  apiKey = k.apiKey;
  publicId = k.publicId;
  await keys.create({
    publicId,
    orgId: 'org_acme',
    prefix: k.prefix,
    hash: hashApiKey(apiKey, PEPPER),
    name: 't',
    createdAt: '',
    revokedAt: null,
  });
  relay = newRelay();
});
afterEach(() => relay.destroy());

const chat = (extra: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello relay!' }], ...extra }),
  );

describe('Relay core', () => {
  it('forwards, returns the provider bytes and puts one envelope after the end', async () => {
    const out = new Collected();
    const outcome = await relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions?trace=1',
        headers: { 'service-api-key': apiKey, 'content-type': 'application/json' },
        body: chat(),
      },
      out.responder(),
    );
    expect(outcome).toMatchObject({ status: 200, kind: 'forwarded', recorded: true });
    expect(out.ended).toBe(true);
    expect(JSON.parse(out.text())).toMatchObject({ object: 'chat.completion' });
    expect(mock.requests()[0]?.url).toBe('/openai/v1/chat/completions?trace=1');
    expect(sink.envelopes).toHaveLength(1);
    expect(sink.envelopes[0]).toMatchObject({
      orgId: 'org_acme',
      keyId: publicId,
      events: [{ inputTokens: 3, outputTokens: 8, verified: true, endpoint: '/v1/chat/completions' }],
    });
  });

  it('answers 401 for an unknown key and 404 for an unknown provider, without contacting anyone', async () => {
    const unknown = generateApiKey((n) => randomBytes(n)).apiKey;
    const a = new Collected();
    const b = new Collected();
    expect(
      (
        await relay.handle(
          {
            method: 'POST',
            url: '/openai/v1/chat/completions',
            headers: { 'service-api-key': unknown },
            body: chat(),
          },
          a.responder(),
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await relay.handle(
          { method: 'POST', url: '/nope/v1/x', headers: { 'service-api-key': apiKey }, body: chat() },
          b.responder(),
        )
      ).status,
    ).toBe(404);
    expect(JSON.parse(a.text())).toMatchObject({ error: { code: 'invalid_service_api_key' } });
    expect(mock.requests()).toHaveLength(0);
    expect(sink.envelopes).toHaveLength(0);
  });

  it('forwards with verified:false when the key store is unreachable (attributed to the last verified owner)', async () => {
    // Prepare: a verifier that can be taken down
    const auth = new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER });
    let down = false;
    const r = newRelay({
      keys: { verify: (k) => (down ? Promise.reject(new Error('dynamodb unreachable')) : auth.verify(k)) },
    });
    const call = () =>
      r.handle(
        {
          method: 'POST',
          url: '/openai/v1/chat/completions',
          headers: { 'service-api-key': apiKey },
          body: chat(),
        },
        new Collected().responder(),
      );
    await call();
    // Act
    down = true;
    const outcome = await call();
    r.destroy();
    // Assess
    expect(outcome).toMatchObject({ status: 200, recorded: true });
    expect(sink.envelopes.map((e) => [e.orgId, e.events[0]?.verified])).toEqual([
      ['org_acme', true],
      ['org_acme', false],
    ]);
    expect(metrics.get('RelayUnverified')).toBe(1);
  });

  it('refuses (503, Retry-After) a key it never verified when the store is down: identity fails closed', async () => {
    const r = newRelay({ keys: { verify: () => Promise.reject(new Error('down')) } });
    const out = new Collected();
    const outcome = await r.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey },
        body: chat(),
      },
      out.responder(),
    );
    r.destroy();
    expect(outcome).toMatchObject({ status: 503, kind: 'rejected', recorded: false });
    expect(out.headers['retry-after']).toBe('5');
    expect(JSON.parse(out.text())).toMatchObject({
      error: { type: 'api_error', code: 'key_verification_unavailable' },
    });
    expect(mock.requests()).toHaveLength(0);
  });

  it('refuses (403 permission_error) a valid key without the proxy scope, without contacting the provider', async () => {
    const k = generateApiKey((n) => randomBytes(n));
    await keys.create({
      publicId: k.publicId,
      orgId: 'org_acme',
      prefix: k.prefix,
      hash: hashApiKey(k.apiKey, PEPPER),
      name: 'telemetry only',
      createdAt: '',
      revokedAt: null,
      scopes: ['ingest', 'read'],
    });
    const out = new Collected();
    const outcome = await relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': k.apiKey },
        body: chat(),
      },
      out.responder(),
    );
    expect(outcome).toMatchObject({ status: 403, kind: 'rejected' });
    expect(JSON.parse(out.text())).toMatchObject({
      error: { type: 'permission_error', code: 'scope_missing' },
    });
    expect(mock.requests()).toHaveLength(0);
    expect(sink.envelopes).toHaveLength(0);
  });

  it('passes gzip bytes through untouched and reads usage from a decompressed copy', async () => {
    const out = new Collected();
    await relay.handle(
      {
        method: 'POST',
        url: '/anthropic/v1/messages',
        headers: { 'service-api-key': apiKey, 'accept-encoding': 'gzip', 'x-mock-encoding': 'gzip' },
        body: Buffer.from(
          JSON.stringify({
            model: 'claude-haiku-4-5',
            max_tokens: 5,
            stream: true,
            messages: [{ role: 'user', content: 'abcdefgh' }],
          }),
        ),
      },
      out.responder(),
    );
    expect(out.headers['content-encoding']).toBe('gzip');
    const raw = Buffer.concat(out.chunks);
    expect(raw[0]).toBe(0x1f); // gzip magic
    expect(sink.envelopes[0]?.events[0]).toMatchObject({
      inputTokens: 2,
      outputTokens: 5,
      stream: true,
      estimated: false,
    });
  });

  it('records a provider error with its status and no usage', async () => {
    const out = new Collected();
    await relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey, 'x-mock-status': '400' },
        body: chat(),
      },
      out.responder(),
    );
    expect(out.status).toBe(400);
    expect(sink.envelopes[0]?.events[0]).toMatchObject({
      statusCode: 400,
      inputTokens: 0,
      outputTokens: 0,
      estimated: false,
      model: 'gpt-4o-mini',
    });
  });

  it('answers 502 when the upstream cannot be reached, and records it', async () => {
    const dead: Server = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const r = newRelay({ upstreams: { openai: `http://127.0.0.1:${port}` } });
    const out = new Collected();
    const outcome = await r.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey },
        body: chat(),
      },
      out.responder(),
    );
    r.destroy();
    expect(outcome).toMatchObject({ status: 502, kind: 'upstream_error' });
    expect(JSON.parse(out.text())).toMatchObject({ error: { code: 'upstream_unreachable' } });
    expect(sink.envelopes[0]?.events[0]).toMatchObject({ statusCode: 502, inputTokens: 0, estimated: false });
    expect(metrics.get('RelayUpstreamError')).toBe(1);
  });

  it('refuses requests without the CloudFront origin secret (403), compared in constant time', async () => {
    const r = newRelay({ originSecret: async () => 'origin-secret-value' });
    const wrong = new Collected();
    const right = new Collected();
    await r.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey, 'x-spendguard-origin-secret': 'guess' },
        body: chat(),
      },
      wrong.responder(),
    );
    await r.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey, 'x-spendguard-origin-secret': 'origin-secret-value' },
        body: chat(),
      },
      right.responder(),
    );
    r.destroy();
    expect(wrong.status).toBe(403);
    expect(right.status).toBe(200);
    expect(mock.requests()).toHaveLength(1);
    expect(mock.requests()[0]?.headers['x-spendguard-origin-secret']).toBeUndefined();
    expect(mock.requests()[0]?.headers['service-api-key']).toBeUndefined();
  });
});

describe('Relay upstream connections', () => {
  it('sends again on a fresh connection when a kept-alive socket turns out to be closed', async () => {
    // Prepare: an upstream that answers the first request of a connection and drops the second
    const reply =
      '{"id":"x","object":"chat.completion","model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
    let connections = 0;
    const upstream = net.createServer((socket) => {
      connections++;
      let requests = 0;
      socket.on('data', () => {
        requests++;
        if (requests === 1) {
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${reply.length}\r\nconnection: keep-alive\r\n\r\n${reply}`,
          );
        } else {
          socket.destroy();
        }
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const r = newRelay({
      upstreams: { openai: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
    });
    const call = async () => {
      const out = new Collected();
      return (
        await r.handle(
          {
            method: 'POST',
            url: '/openai/v1/chat/completions',
            headers: { 'service-api-key': apiKey },
            body: chat(),
          },
          out.responder(),
        )
      ).status;
    };
    // Act
    const statuses = [await call(), await call()];
    r.destroy();
    upstream.close();
    // Assess
    expect(statuses).toEqual([200, 200]);
    expect(connections).toBe(2);
    expect(sink.envelopes).toHaveLength(2);
  });

  it('does not keep binary responses for usage; the event estimates the prompt', async () => {
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(Buffer.alloc(64 * 1024, 7));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const r = newRelay({
      upstreams: { openai: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
    });
    const out = new Collected();
    await r.handle(
      {
        method: 'POST',
        url: '/openai/v1/audio/speech',
        headers: { 'service-api-key': apiKey },
        body: Buffer.from(
          JSON.stringify({ model: 'gpt-4o-mini-tts', input: 'Hello there, this is speech.' }),
        ),
      },
      out.responder(),
    );
    r.destroy();
    upstream.close();
    expect(Buffer.concat(out.chunks).byteLength).toBe(64 * 1024);
    expect(sink.envelopes[0]?.events[0]).toMatchObject({
      model: 'gpt-4o-mini-tts',
      estimated: true,
      outputTokens: 0,
      statusCode: 200,
    });
    expect(sink.envelopes[0]?.events[0]?.inputTokens).toBeGreaterThan(0);
  });
});

describe('Lambda streaming adapter', () => {
  function urlEvent(body: string, extra: Partial<LambdaFunctionURLEvent> = {}): LambdaFunctionURLEvent {
    return {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/openai/v1/chat/completions',
      rawQueryString: 'a=1',
      cookies: ['c1=v1', 'c2=v2'],
      headers: {
        'service-api-key': apiKey,
        'content-type': 'application/json',
        'x-spendguard-origin-secret': 'sek',
        'x-amzn-trace-id': 'Root=1',
      },
      requestContext: {
        http: {
          method: 'POST',
          path: '/openai/v1/chat/completions',
          protocol: 'HTTP/1.1',
          sourceIp: '1.2.3.4',
          userAgent: 'x',
        },
      } as LambdaFunctionURLEvent['requestContext'],
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
      ...extra,
    };
  }

  it('cuts a call still running near the invocation timeout, and records it before Lambda would kill it', async () => {
    const r = newRelay({ originSecret: async () => 'sek' });
    const handler = createStreamingHandler(() => r, undefined);
    const stream = new Collected();
    const base = urlEvent(chat({ stream: true, stream_options: { include_usage: true } }).toString());
    // A 200-chunk stream at 25 ms a chunk (5 s); the invocation has 10.3 s left: cut after 0.3 s.
    const event = {
      ...base,
      headers: { ...base.headers, 'x-mock-chunks': '200', 'x-mock-chunk-delay-ms': '25' },
    };
    const context = { getRemainingTimeInMillis: () => 10_300 } as unknown as Context;
    const started = Date.now();
    await handler(event, stream, context);
    r.destroy();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(sink.envelopes).toHaveLength(1);
    expect(sink.envelopes[0]?.events[0]).toMatchObject({ estimated: true });
    expect(stream.text()).not.toContain('data: [DONE]');
  });

  it('uses streamifyResponse and HttpResponseStream.from, streams the body and puts the event before returning', async () => {
    const metadata: HttpResponseMetadata[] = [];
    const runtime: AwsLambdaRuntime = {
      streamifyResponse: (h) => h,
      HttpResponseStream: {
        from: (stream, m) => {
          metadata.push(m);
          return stream;
        },
      },
    };
    const r = newRelay({ originSecret: async () => 'sek' });
    const handler = createStreamingHandler(() => r, runtime);
    const stream = new Collected();
    await handler(
      urlEvent(chat({ stream: true, stream_options: { include_usage: true } }).toString()),
      stream,
    );
    r.destroy();
    expect(metadata[0]?.statusCode).toBe(200);
    expect(metadata[0]?.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(metadata[0]?.headers['content-length']).toBeUndefined();
    expect(stream.text()).toContain('data: [DONE]');
    expect(sink.envelopes).toHaveLength(1);
    const seen = mock.requests()[0];
    expect(seen?.url).toBe('/openai/v1/chat/completions?a=1');
    expect(seen?.headers.cookie).toBe('c1=v1; c2=v2');
    expect(seen?.headers['x-amzn-trace-id']).toBeUndefined();
  });
});
