/**
 * Issue 19.3 and 19.4: every call the relay admits ends its reservation, whatever throws on the way, and a
 * call whose usage cannot be read keeps its worst case instead of settling at the prompt estimate.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryApiKeyStore, MemoryEventSink } from '../../local/proxy/memory-stores';
import { startMockProviders, type MockProviders } from '../../local/mock-providers';
import { MemoryMetrics } from '../edge-guard/metrics';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import type { AdmissionDecision, RelayAdmission } from './budget-admission';
import { decodableAcceptEncoding, Relay, type RelayOptions, type RelayResponder } from './relay';

const PEPPER = 'relay-settlement-pepper-0123456789abcdef';
const RESERVED = 5_000_000;

/** Counts reservations that were taken and not yet settled. */
class CountingAdmission implements RelayAdmission {
  open = 0;
  admitted = 0;
  readonly settledWith: Array<number | null> = [];
  admit(): Promise<AdmissionDecision> {
    this.open++;
    this.admitted++;
    let done = false;
    return Promise.resolve({
      kind: 'admitted',
      ticket: {
        reservedNanos: RESERVED,
        settle: (actual: number | null) => {
          if (done) return;
          done = true;
          this.open--;
          this.settledWith.push(actual);
        },
      },
    });
  }
}

class Collected extends EventEmitter {
  status = 0;
  headers: Record<string, string | string[]> = {};
  chunks: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.chunks.push(Buffer.from(chunk));
    return true;
  }
  end(chunk?: Buffer | string): void {
    if (chunk !== undefined) this.chunks.push(Buffer.from(chunk));
  }
  destroy(): void {}
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
  responder(): RelayResponder {
    return {
      keepsContentLength: true,
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
let apiKey: string;

beforeAll(async () => {
  mock = await startMockProviders({ port: 0 });
  keys = new MemoryApiKeyStore();
  const k = generateApiKey((n) => randomBytes(n));
  apiKey = k.apiKey;
  await keys.create({
    publicId: k.publicId,
    orgId: 'org_acme',
    prefix: k.prefix,
    hash: hashApiKey(apiKey, PEPPER),
    name: 't',
    createdAt: '',
    revokedAt: null,
  });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function relayWith(admission: RelayAdmission, extra: Partial<RelayOptions> = {}): Relay {
  return new Relay({
    keys: new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER }),
    sink: new MemoryEventSink(),
    metrics: new MemoryMetrics(),
    upstreams: mock.baseUrls,
    admission,
    ...extra,
  });
}

const chat = (extra: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hello relay!' }],
      ...extra,
    }),
  );

describe('requests Node cannot send are answered 400 before admission (19.3)', () => {
  it.each([
    ['a header value outside Latin-1', '/openai/v1/chat/completions', { 'x-note': 'café ☕' }],
    ['a header value with a line break', '/openai/v1/chat/completions', { 'x-note': 'a\r\nb' }],
    ['a path with a space', '/openai/v1/chat/completions?q=a b', {}],
    ['a path outside Latin-1', '/openai/v1/chat/completions?q=☕', {}],
  ])('%s: 400 invalid_request, nothing reserved, nothing sent', async (_label, url, extra) => {
    const admission = new CountingAdmission();
    const relay = relayWith(admission);
    const out = new Collected();
    const outcome = await relay.handle(
      { method: 'POST', url, headers: { 'service-api-key': apiKey, ...extra }, body: chat() },
      out.responder(),
    );
    relay.destroy();
    expect(outcome.status).toBe(400);
    expect(JSON.parse(out.text())).toMatchObject({ error: { code: 'invalid_request' } });
    expect(admission.admitted).toBe(0);
    expect(admission.open).toBe(0);
    expect(mock.requests()).toHaveLength(0);
  });

  it('refuses duplicate x-spendguard-session headers (array or comma-joined) with 400', async () => {
    const admission = new CountingAdmission();
    const relay = relayWith(admission);
    for (const session of [['a', 'b'], 'a,b']) {
      const out = new Collected();
      const outcome = await relay.handle(
        {
          method: 'POST',
          url: '/openai/v1/chat/completions',
          headers: { 'service-api-key': apiKey, 'x-spendguard-session': session },
          body: chat(),
        },
        out.responder(),
      );
      expect(outcome.status).toBe(400);
      expect(out.text()).toContain('x-spendguard-session');
    }
    relay.destroy();
    expect(admission.admitted).toBe(0);
    expect(mock.requests()).toHaveLength(0);
  });
});

/** Throws at the `at`-th call of any hooked dependency (counting from 1); counts the calls. */
class Faults {
  calls = 0;
  constructor(readonly at: number) {}
  hit(): void {
    this.calls++;
    if (this.calls === this.at) throw new Error(`injected fault #${this.at}`);
  }
}

function faultyRun(faults: Faults, stream: boolean, admission: CountingAdmission) {
  const auth = new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER });
  const sink = new MemoryEventSink();
  const relay = new Relay({
    keys: {
      verify: async (k) => {
        faults.hit();
        return auth.verify(k);
      },
    },
    sink: {
      put: async (envelopes) => {
        faults.hit();
        return sink.put(envelopes);
      },
    },
    upstreams: mock.baseUrls,
    admission: {
      admit: async () => {
        faults.hit();
        return admission.admit();
      },
    },
    now: () => {
      faults.hit();
      return Date.now();
    },
    eventId: () => {
      faults.hit();
      return 'evt_1';
    },
    tokenCounter: (text) => {
      faults.hit();
      return Math.ceil(text.length / 4);
    },
    priceUsd: () => {
      faults.hit();
      return 0.001;
    },
  });
  const out = new Collected();
  const responder: RelayResponder = {
    keepsContentLength: true,
    start: (status, headers) => {
      faults.hit();
      out.status = status;
      out.headers = headers;
      return {
        write: (chunk) => {
          faults.hit();
          return out.write(chunk);
        },
        end: (chunk) => {
          faults.hit();
          out.end(chunk);
        },
        once: () => out,
        destroy: () => undefined,
      };
    },
  };
  const gone = (listener: () => void) => {
    faults.hit();
    void listener;
    return () => faults.hit();
  };
  return {
    relay,
    run: () =>
      relay.handle(
        {
          method: 'POST',
          url: '/openai/v1/chat/completions',
          headers: { 'service-api-key': apiKey, 'x-mock-chunks': '3' },
          body: chat({ stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
          onClientGone: gone,
        },
        responder,
      ),
  };
}

describe('every path after admission settles (19.3)', () => {
  it.each([false, true])(
    'a throw at each await point and hook of the call path (stream: %s) leaves nothing reserved',
    async (stream) => {
      // First a clean run: how many hook calls one request makes.
      const clean = new Faults(0);
      const cleanAdmission = new CountingAdmission();
      const c = faultyRun(clean, stream, cleanAdmission);
      await c.run();
      c.relay.destroy();
      expect(cleanAdmission.admitted).toBe(1);
      expect(clean.calls).toBeGreaterThan(8);
      for (let at = 1; at <= clean.calls; at++) {
        const admission = new CountingAdmission();
        const f = faultyRun(new Faults(at), stream, admission);
        const outcome = await f.run();
        f.relay.destroy();
        expect({ at, status: typeof outcome.status, open: admission.open }).toEqual({
          at,
          status: 'number',
          open: 0,
        });
      }
    },
  );
});

/** An upstream that honours zstd when asked (the relay cannot decode it) and reports usage otherwise. */
async function zstdUpstream(): Promise<{
  url: string;
  seen: IncomingHttpHeaders[];
  close: () => Promise<void>;
}> {
  const seen: IncomingHttpHeaders[] = [];
  const body = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1_000, completion_tokens: 2_000, total_tokens: 3_000 },
  });
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => {
      if (/zstd/.test(String(req.headers['accept-encoding'] ?? ''))) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
        res.end(randomBytes(64));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('usage stays readable, and unread usage keeps the reservation (19.4)', () => {
  it('asks the provider only for codings it decodes, so a zstd-asking client is still metered', async () => {
    const up = await zstdUpstream();
    const admission = new CountingAdmission();
    const metrics = new MemoryMetrics();
    const relay = relayWith(admission, { upstreams: { openai: up.url }, metrics, priceUsd: null });
    const out = new Collected();
    await relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey, 'accept-encoding': 'zstd' },
        body: chat(),
      },
      out.responder(),
    );
    relay.destroy();
    await up.close();
    expect(up.seen[0]?.['accept-encoding']).toBe('identity');
    expect(out.headers['content-encoding']).toBeUndefined();
    // gpt-4o-mini: 1,000 input × $0.15/MTok + 2,000 output × $0.60/MTok = 150,000 + 1,200,000 nanos
    expect(admission.settledWith).toEqual([1_350_000]);
    expect(metrics.get('RelayUsageUnread')).toBe(0);
  });

  it('settles at the reservation and counts RelayUsageUnread when the body is over the size bound', async () => {
    const admission = new CountingAdmission();
    const metrics = new MemoryMetrics();
    const relay = relayWith(admission, { maxJsonBytes: 64, metrics });
    const out = new Collected();
    const outcome = await relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey },
        body: chat(),
      },
      out.responder(),
    );
    relay.destroy();
    expect(outcome.status).toBe(200);
    expect(out.text().length).toBeGreaterThan(64);
    expect(admission.settledWith).toEqual([null]);
    expect(metrics.get('RelayUsageUnread', { Reason: 'unread' })).toBe(1);
  });

  it('keeps the reservation when the client leaves after the request reached the provider (18.8)', async () => {
    const admission = new CountingAdmission();
    const metrics = new MemoryMetrics();
    const relay = relayWith(admission, { metrics });
    const outcome = await relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        // The provider takes 400 ms; the client gives up after 100: the provider still generates and bills.
        headers: { 'service-api-key': apiKey, 'x-mock-latency-ms': '400' },
        body: chat(),
        onClientGone: (listener) => {
          const timer = setTimeout(listener, 100);
          return () => clearTimeout(timer);
        },
      },
      new Collected().responder(),
    );
    relay.destroy();
    expect(outcome.status).toBe(499);
    expect(mock.requests()).toHaveLength(1);
    expect(admission.settledWith).toEqual([null]);
    expect(metrics.get('RelayUsageUnread', { Reason: 'abandoned' })).toBe(1);
  });

  /** A call whose client leaves after 100 ms, with the mock's answer shaped by `headers`. */
  const abandonedCall = (relay: Relay, headers: Record<string, string>) =>
    relay.handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': apiKey, ...headers },
        body: chat(),
        onClientGone: (listener) => {
          const timer = setTimeout(listener, 100);
          return () => clearTimeout(timer);
        },
      },
      new Collected().responder(),
    );

  it('releases the reservation when the client left and the provider then refused the call (a bad provider key bills nothing)', async () => {
    const admission = new CountingAdmission();
    const metrics = new MemoryMetrics();
    const sink = new MemoryEventSink();
    const relay = relayWith(admission, { metrics, sink });
    // A bogus provider credential: the provider answers 401 at 300 ms, after the client gave up at 100.
    const outcome = await abandonedCall(relay, { 'x-mock-latency-ms': '300', 'x-mock-status': '401' });
    relay.destroy();
    expect(outcome.status).toBe(401);
    expect(admission.settledWith).toEqual([0]);
    expect(metrics.get('RelayUsageUnread', { Reason: 'abandoned' })).toBe(0);
    expect(sink.envelopes.flatMap((e) => e.events.map((ev) => ev.statusCode))).toEqual([401]);
  });

  it('keeps the worst case when the provider has not answered by the wait after the client left', async () => {
    const admission = new CountingAdmission();
    const relay = relayWith(admission, { abandonedStatusWaitMs: 200 });
    const started = Date.now();
    const outcome = await abandonedCall(relay, { 'x-mock-latency-ms': '3000' });
    relay.destroy();
    expect(Date.now() - started).toBeLessThan(2000); // settled at the wait, not at the provider's answer
    expect(outcome.status).toBe(499);
    expect(admission.settledWith).toEqual([null]);
  });

  it('keeps the client’s other codings and drops only those it cannot decode', () => {
    expect(decodableAcceptEncoding(undefined)).toBeUndefined();
    expect(decodableAcceptEncoding('zstd')).toBe('identity');
    expect(decodableAcceptEncoding('gzip, zstd;q=1.0, br;q=0.5')).toBe('gzip, br;q=0.5');
    expect(decodableAcceptEncoding(['deflate', 'compress'])).toBe('deflate');
  });
});

describe('the relay learns an organization’s reasoning (issue 18.8)', () => {
  it('estimates an o3 stream without usage at what the organization’s o3 calls reported', async () => {
    const completion = JSON.stringify({
      id: 'chatcmpl-r',
      object: 'chat.completion',
      model: 'o3-2025-04-16',
      choices: [{ index: 0, message: { role: 'assistant', content: 'yes' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 20,
        completion_tokens: 2_401,
        total_tokens: 2_421,
        completion_tokens_details: { reasoning_tokens: 2_400 },
      },
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'o3-2025-04-16', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const server: Server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        if ((JSON.parse(text) as { stream?: boolean }).stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            chunk({ role: 'assistant', content: '' }) +
              chunk({ content: 'no' }) +
              chunk({}, 'stop') +
              'data: [DONE]\n\n',
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const sink = new MemoryEventSink();
    const relay = relayWith(new CountingAdmission(), {
      sink,
      upstreams: { openai: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    });
    const send = (stream: boolean) =>
      relay.handle(
        {
          method: 'POST',
          url: '/openai/v1/chat/completions',
          headers: { 'service-api-key': apiKey },
          body: Buffer.from(
            JSON.stringify({ model: 'o3', stream, messages: [{ role: 'user', content: 'ok?' }] }),
          ),
        },
        new Collected().responder(),
      );
    await send(true); // nothing learned yet: the published figure
    for (let i = 0; i < 3; i++) await send(false);
    await send(true);
    relay.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    const events = sink.envelopes.map((e) => e.events[0]!);
    expect(events[0]).toMatchObject({ estimated: true, reasoningTokens: 1_536 });
    expect(events[4]).toMatchObject({ estimated: true, reasoningTokens: 2_400 });
  });
});
