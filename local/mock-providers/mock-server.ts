/**
 * Fake AI providers on one loopback HTTP server, answering in the providers' real wire formats with
 * deterministic usage (see tokens.ts), for tests, the benchmark and `npm start -- --mock-providers`.
 *
 * Routes (POST unless noted), under one prefix per provider so each has its own base URL:
 * - `/openai/v1/chat/completions`, `/openai/v1/responses`, `/openai/v1/embeddings`, GET `/openai/v1/models`
 * - `/anthropic/v1/messages`
 * - `/openrouter/api/v1/chat/completions`
 * - admin reports (GET, formats/admin-reports.ts), from every call served: `/openai/v1/organization/usage/
 *   completions`, `…/usage/embeddings`, `…/costs`; `/anthropic/v1/organizations/usage_report/messages`,
 *   `…/cost_report`; `/openrouter/api/v1/activity`. They need the provider's admin credential header
 *   (`Authorization: Bearer …` or Anthropic's `x-api-key`), any non-empty value.
 *
 * Request headers that steer a reply (they pass through the proxy untouched, like any header):
 * - `x-mock-status: <code>` answers that status with the provider's error body;
 * - `x-mock-latency-ms` delays the response head; `x-mock-chunk-delay-ms` delays each SSE frame;
 * - `x-mock-chunks` sets the number of completion tokens (= streamed content chunks);
 * - `x-mock-encoding: gzip | br | deflate` compresses the reply when the request's `accept-encoding`
 *   allows it (SSE frames are flushed one by one through the compressor).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { Transform } from 'node:stream';
import zlib from 'node:zlib';

import { billCall, type BilledCall } from './billing';
import {
  anthropicCostReport,
  anthropicUsageReport,
  openAiCosts,
  openAiUsage,
  openRouterActivity,
} from './formats/admin-reports';
import { anthropicError, messages } from './formats/anthropic';
import { chatCompletions, embeddings, openaiError, responses } from './formats/openai';
import { openrouterChat } from './formats/openrouter';
import { json, MOCK_CREATED, type MockCall, type MockProviderName, type MockReply } from './types';

/** Options of {@link startMockProviders}. */
export interface MockProvidersOptions {
  /** @default 0 (a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Delay before every response head, in ms (a request's `x-mock-latency-ms` overrides it). @default 0 */
  readonly latencyMs?: number;
  /** Delay between SSE frames, in ms (a request's `x-mock-chunk-delay-ms` overrides it). @default 0 */
  readonly chunkDelayMs?: number;
  /**
   * Keep every request body in {@link MockRequest.body}. Turn off for long benchmark runs.
   * @default true
   */
  readonly recordBodies?: boolean;
  /** Clock of the billing records and admin reports (tests move it to a later day). @default Date.now */
  readonly now?: () => number;
}

/** One request the fake providers received. */
export interface MockRequest {
  readonly provider: MockProviderName | undefined;
  readonly method: string;
  /** Path and query as received, provider prefix included (`/openai/v1/chat/completions`). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body bytes (empty when `recordBodies` is off). */
  readonly body: Buffer;
  readonly bodyLength: number;
  /** The client went away before the reply was complete. */
  aborted: boolean;
  /** The whole reply was written. */
  completed: boolean;
}

/** The running fake providers. */
export interface MockProviders {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Base URLs to use as the providers' upstreams (the proxy appends the provider path to them). */
  readonly baseUrls: { readonly openai: string; readonly anthropic: string; readonly openrouter: string };
  /** Every request received since start (or the last reset), in arrival order. */
  requests(): readonly MockRequest[];
  /** Every call billed since start (or the last reset): what the admin reports are computed from. */
  billed(): readonly BilledCall[];
  /** Forgets the recorded requests and the bill. */
  reset(): void;
  close(): Promise<void>;
}

type Route = (call: MockCall) => MockReply;

const ROUTES: Readonly<Record<string, { provider: MockProviderName; route: Route; method?: string }>> = {
  '/openai/v1/chat/completions': { provider: 'openai', route: (c) => chatCompletions(c) },
  '/openai/v1/responses': { provider: 'openai', route: responses },
  '/openai/v1/embeddings': { provider: 'openai', route: embeddings },
  '/openai/v1/models': {
    provider: 'openai',
    method: 'GET',
    route: () =>
      json(200, {
        object: 'list',
        data: [{ id: 'gpt-4o-mini', object: 'model', created: MOCK_CREATED, owned_by: 'system' }],
      }),
  },
  '/anthropic/v1/messages': { provider: 'anthropic', route: messages },
  '/openrouter/api/v1/chat/completions': { provider: 'openrouter', route: openrouterChat },
};

type AdminRoute = (calls: readonly BilledCall[], query: URLSearchParams, now: number) => MockReply;

/** The admin report endpoints, by path; each needs its provider's admin credential header. */
const ADMIN_ROUTES: Readonly<Record<string, { provider: MockProviderName; route: AdminRoute }>> = {
  '/openai/v1/organization/usage/completions': {
    provider: 'openai',
    route: (c, q, now) => openAiUsage('completions', c, q, now),
  },
  '/openai/v1/organization/usage/embeddings': {
    provider: 'openai',
    route: (c, q, now) => openAiUsage('embeddings', c, q, now),
  },
  '/openai/v1/organization/costs': { provider: 'openai', route: openAiCosts },
  '/anthropic/v1/organizations/usage_report/messages': { provider: 'anthropic', route: anthropicUsageReport },
  '/anthropic/v1/organizations/cost_report': { provider: 'anthropic', route: anthropicCostReport },
  '/openrouter/api/v1/activity': { provider: 'openrouter', route: openRouterActivity },
};

function adminReply(
  req: IncomingMessage,
  url: string,
  admin: (typeof ADMIN_ROUTES)[string],
  calls: readonly BilledCall[],
  now: number,
): MockReply {
  const credential =
    admin.provider === 'anthropic'
      ? req.headers['x-api-key']
      : req.headers.authorization?.replace(/^Bearer\s+/i, '');
  if (typeof credential !== 'string' || credential.trim() === '') {
    return admin.provider === 'anthropic'
      ? anthropicError(401, 'x-api-key header is required')
      : openaiError(401, 'admin key required');
  }
  if ((req.method ?? 'GET') !== 'GET')
    return admin.provider === 'anthropic' ? anthropicError(405) : openaiError(405);
  const query = new URL(url, 'http://mock').searchParams;
  return admin.route(calls, query, now);
}

const PROVIDER_PREFIXES: readonly MockProviderName[] = ['openai', 'anthropic', 'openrouter'];

/**
 * Starts the fake providers.
 *
 * @example
 * const mock = await startMockProviders({ port: 0 });
 * await fetch(`${mock.baseUrls.openai}/v1/chat/completions`, { method: 'POST', body: '{"messages":[]}' });
 * mock.requests().length; // 1
 * await mock.close();
 */
export async function startMockProviders(options: MockProvidersOptions = {}): Promise<MockProviders> {
  const host = options.host ?? '127.0.0.1';
  const recordBodies = options.recordBodies ?? true;
  const now = options.now ?? Date.now;
  let recorded: MockRequest[] = [];
  let billed: BilledCall[] = [];
  const sockets = new Set<Socket>();

  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const url = req.url ?? '/';
      const path = url.split('?', 1)[0] ?? '/';
      const entry = ROUTES[path];
      const admin = ADMIN_ROUTES[path];
      const provider =
        entry?.provider ?? admin?.provider ?? PROVIDER_PREFIXES.find((p) => path.startsWith(`/${p}/`));
      const rec: MockRequest = {
        provider,
        method: req.method ?? 'GET',
        url,
        headers: req.headers,
        body: recordBodies ? body : Buffer.alloc(0),
        bodyLength: body.byteLength,
        aborted: false,
        completed: false,
      };
      recorded.push(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.aborted = true;
      });
      let reply: MockReply;
      if (admin) {
        reply = adminReply(req, url, admin, billed, now());
      } else {
        const answered = answer(req, body, entry, provider);
        reply = answered.reply;
        const served = reply.kind === 'sse' || (reply.status >= 200 && reply.status < 300);
        const bill = served && answered.call ? billCall(path, answered.call, now()) : undefined;
        if (bill) billed.push(bill);
      }
      const latency = numberHeader(req.headers['x-mock-latency-ms']) ?? options.latencyMs ?? 0;
      const chunkDelay = numberHeader(req.headers['x-mock-chunk-delay-ms']) ?? options.chunkDelayMs ?? 0;
      const send = (): void => {
        void write(req, res, reply, chunkDelay).then(() => {
          rec.completed = res.writableFinished;
        });
      };
      if (latency > 0) setTimeout(send, latency);
      else send();
    });
  });
  server.on('connection', (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    baseUrls: { openai: `${url}/openai`, anthropic: `${url}/anthropic`, openrouter: `${url}/openrouter` },
    requests: () => recorded,
    billed: () => billed,
    reset: () => {
      recorded = [];
      billed = [];
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

function numberHeader(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function answer(
  req: IncomingMessage,
  body: Buffer,
  entry: (typeof ROUTES)[string] | undefined,
  provider: MockProviderName | undefined,
): { reply: MockReply; call?: MockCall } {
  const errorFor = (status: number): MockReply =>
    provider === 'anthropic' ? anthropicError(status) : openaiError(status);
  const forced = numberHeader(req.headers['x-mock-status']);
  if (forced !== undefined && forced >= 400 && forced <= 599) return { reply: errorFor(forced) };
  if (entry === undefined) return { reply: errorFor(404) };
  if ((req.method ?? 'GET') !== (entry.method ?? 'POST')) return { reply: errorFor(405) };
  let parsed: Record<string, unknown> | undefined;
  if (body.byteLength > 0) {
    try {
      const value: unknown = JSON.parse(body.toString('utf8'));
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        parsed = value as Record<string, unknown>;
      }
    } catch {
      return { reply: errorFor(400) };
    }
  }
  const id = createHash('sha256')
    .update(req.url ?? '')
    .update(body)
    .digest('hex')
    .slice(0, 24);
  const chunks = req.headers['x-mock-chunks'];
  const call: MockCall = { body: parsed, id, chunks: typeof chunks === 'string' ? chunks : undefined };
  return { reply: entry.route(call), call };
}

const ENCODINGS = ['gzip', 'br', 'deflate'] as const;
type Encoding = (typeof ENCODINGS)[number];

function chosenEncoding(req: IncomingMessage): Encoding | undefined {
  const wanted = req.headers['x-mock-encoding'];
  const accepted = req.headers['accept-encoding'];
  if (typeof wanted !== 'string' || typeof accepted !== 'string') return undefined;
  const enc = ENCODINGS.find((e) => e === wanted.trim().toLowerCase());
  return enc !== undefined && accepted.toLowerCase().includes(enc) ? enc : undefined;
}

function compressor(enc: Encoding): Transform {
  if (enc === 'gzip') return zlib.createGzip();
  if (enc === 'br') return zlib.createBrotliCompress();
  return zlib.createDeflate();
}

function compressSync(enc: Encoding, data: Buffer): Buffer {
  if (enc === 'gzip') return zlib.gzipSync(data);
  if (enc === 'br') return zlib.brotliCompressSync(data);
  return zlib.deflateSync(data);
}

function providerHeaders(req: IncomingMessage, reply: MockReply): Record<string, string> {
  const id = `req_mock_${createHash('sha1')
    .update(req.url ?? '')
    .digest('hex')
    .slice(0, 12)}`;
  const isAnthropic = (req.url ?? '').startsWith('/anthropic/');
  return { ...(isAnthropic ? { 'request-id': id } : { 'x-request-id': id }), ...reply.headers };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function write(
  req: IncomingMessage,
  res: ServerResponse,
  reply: MockReply,
  chunkDelayMs: number,
): Promise<void> {
  if (res.destroyed) return;
  const enc = chosenEncoding(req);
  const headers = providerHeaders(req, reply);
  if (reply.kind === 'json') {
    let payload: Buffer = Buffer.from(reply.body, 'utf8');
    if (enc !== undefined) {
      payload = compressSync(enc, payload);
      headers['content-encoding'] = enc;
    }
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.byteLength);
    res.writeHead(reply.status, headers);
    res.end(payload);
    return;
  }
  headers['content-type'] = 'text/event-stream; charset=utf-8';
  headers['cache-control'] = 'no-cache';
  let out: { write(s: string): void; end(): void; flush?: () => Promise<void> };
  if (enc === undefined) {
    res.writeHead(200, headers);
    out = { write: (s) => res.write(s), end: () => res.end() };
  } else {
    headers['content-encoding'] = enc;
    res.writeHead(200, headers);
    const z = compressor(enc) as Transform & { flush(cb: () => void): void };
    z.pipe(res);
    out = {
      write: (s) => z.write(s),
      end: () => z.end(),
      flush: () => new Promise<void>((r) => z.flush(() => r())),
    };
  }
  for (const frame of reply.frames) {
    if (res.destroyed) return;
    out.write(frame);
    if (out.flush) await out.flush();
    if (chunkDelayMs > 0) await sleep(chunkDelayMs);
  }
  if (res.destroyed) return;
  out.end();
  await new Promise<void>((r) => (res.writableFinished ? r() : res.once('finish', () => r())));
}
