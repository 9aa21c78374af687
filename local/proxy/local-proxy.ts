/**
 * The local stand-in for CloudFront + Lambda@Edge + the relay: one node:http server on the loopback
 * interface running the same guard decision code and the same relay code as AWS.
 *
 * Routes: `/<provider slug>/<provider path>` for every catalog provider (`/openai/v1/…`,
 * `/anthropic/v1/…`, `/openrouter/api/v1/…`, `/gemini/…`, …), and `GET /healthz`.
 *
 * The guard is one instance (the edge); the relay runs as a pool of Lambda-like containers, each its own
 * lease holder with its own caches and spool (relay-pool.ts, design decision 14).
 */
import { answerMalformedRequests } from '../runtime/client-error';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { PriceRegistry } from '../../core/pricing';
import type { NormalizedUsage, TokenCounter } from '../../core/usage';
import { countOpenAITokens } from '../../core/usage/tokenizer-openai';
import type { GuardDecision } from '../../lambdas/edge-guard/decide';
import { EdgeGuard, flagSourceFromStore, type FlagSource } from '../../lambdas/edge-guard/guard';
import { MemoryMetrics, type MetricsSink } from '../../lambdas/edge-guard/metrics';
import type { ThrottlePolicy } from '../../lambdas/edge-guard/throttle';
import type { KeyVerifier } from '../../lambdas/relay/key-auth';
import { DEFAULT_MAX_REQUEST_BYTES, readBody, relayNodeRequest } from '../../lambdas/relay/node-adapter';
import { LeaseAdmission } from '../../lambdas/relay/budget-admission';
import { Relay, type RelayOutcome } from '../../lambdas/relay/relay';
import type { BudgetLeases } from '../../lambdas/shared/budget-leases';
import { ApiKeyAuthenticator } from '../../lambdas/shared/api-key-auth';
import { type EventSink, SpoolingEventSink } from '../../lambdas/shared/event-sink';
import type { SecretSource } from '../../lambdas/shared/secrets';
import { deferredBillingPolicy } from '../../lambdas/shared/deferred-billing';
import { createOrgPricingSource } from '../../lambdas/shared/org-pricing-source';
import type { ApiKeyStore } from '../../lambdas/shared/stores/api-key-store';
import type { PricingRatesStore } from '../../lambdas/shared/stores/pricing-rates-store';
import type { FlagStore } from '../../lambdas/shared/stores/flag-store';
import type { OrgConfigStore } from '../../lambdas/shared/stores/org-config-store';
import type { LoopRunStore } from '../../lambdas/shared/stores/loop-run-store';
import type { ResumeStore } from '../../lambdas/shared/stores/resume-store';
import type { TripLog } from '../../lambdas/shared/stores/trip-log';
import { TripLogVerdicts } from '../../lambdas/relay/loop-verdicts';
import { InlineLoopCheck } from '../../lambdas/relay/loop-check';
import { OrgPolicyCache, type OrgPolicySource } from '../../lambdas/relay/org-policy-cache';
import { DEFAULT_POLICY } from '../../core/guardrails/policy';
import { processTimers, type Timers } from '../../lambdas/shared/timers';
import { allowedHosts, hostAllowed, misdirectedMessage } from '../runtime/loopback-host';
import { dualProtocolServer } from '../runtime/h2c';
import { isBedrockUrl } from '../../lambdas/relay/bedrock-route';
import { toBedrockError } from '../../lambdas/relay/bedrock-refusal';
import { RelayPool, THROTTLED, THROTTLED_RESPONSE } from './relay-pool';

/** The default port of the local proxy. */
export const DEFAULT_PROXY_PORT = 8788;

/** Options of {@link createLocalProxy}. */
export interface LocalProxyOptions {
  /** @default 8788 (0: a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** The kill flags: the Flags table store (dynalite locally) or any {@link FlagSource}. */
  readonly flags: FlagStore | FlagSource;
  /** Key verification: an `ApiKeyAuthenticator` (or any verifier), or the key store to build one over. */
  readonly apiKeys: KeyVerifier | ApiKeyStore;
  /** Where the one event per request goes (the Kinesis sink locally). */
  readonly sink: EventSink;
  /** The server pepper: the value, a secret source, or a function. */
  readonly pepper: string | SecretSource | (() => Promise<string>);
  /** Upstream base URL per provider slug (e.g. the mock providers' `baseUrls`). */
  readonly upstreams?: Readonly<Partial<Record<string, string>>>;
  /** Counters (fail-opens, rejections…). @default a MemoryMetrics, exposed as `proxy.metrics` */
  readonly metrics?: MetricsSink;
  readonly now?: () => number;
  /** Guard cache lifetime in ms. @default 1000 */
  readonly flagCacheTtlMs?: number;
  /** What THROTTLED allows. @default 1 request / 6 s per key */
  readonly throttle?: ThrottlePolicy;
  /** @default 32 MiB */
  readonly maxRequestBytes?: number;
  /** The relay's own price per call (null: none). @default the bundled registry */
  readonly priceUsd?: ((provider: string, usage: NormalizedUsage, tsMs: number) => number | null) | null;
  readonly tokenCounter?: TokenCounter;
  /**
   * Budget leases (the Data table's lease items): with them the relay admits each call against the
   * organization's hard caps before contacting the provider (docs/admission.md). Omit for no admission.
   */
  readonly budgetLeases?: BudgetLeases;
  /**
   * Organizations' stored pricing rates: admission then reserves and settles at the prices the pipeline's
   * ledger uses (issue 18.2), each container with its own cache as in Lambda. @default list prices
   */
  readonly pricingRates?: PricingRatesStore;
  /** The registry the pipeline prices with. @default the bundled registry */
  readonly priceRegistry?: () => Promise<PriceRegistry>;
  /**
   * How long a call waits for a lease write before its retryable 429 (LeaseAdmission `storeTimeoutMs`).
   * Longer than in AWS (1 s): the local store runs in this process, so its latency is the machine's load
   * (a busy laptop or CI runner), not DynamoDB's. @default 5,000 ms
   */
  readonly leaseStoreTimeoutMs?: number;
  /**
   * The organizations' config items (their guardrail policies), read by each relay container's in-line
   * loop check (issue 19.6). Without it every organization has the default policy (layer 2 on, 4 calls).
   */
  readonly orgConfig?: Pick<OrgConfigStore, 'get'>;
  /**
   * The pipeline's trip log: a call under an in-line loop hold asks it whether the pipeline has flagged
   * (then a Resume ends the hold at once). Without it a hold lasts its 10 s.
   */
  readonly trips?: Pick<TripLog, 'recent'>;
  /**
   * The identical-call runs the relay containers share: a tight loop spread over several containers is
   * counted whole (lambdas/relay/loop-check.ts). Without it each container counts alone.
   */
  readonly loopRuns?: LoopRunStore;
  /** When people last resumed: a held loop ends at once on a Resume of its key (lambdas/relay/loop-check.ts). */
  readonly resumes?: Pick<ResumeStore, 'get'>;
  /** Relay containers at most (the relay's reserved concurrency; one call per container). @default 100 */
  readonly relayConcurrency?: number;
  /** An idle relay container is recycled after this long, ms. @default 10 min */
  readonly relayIdleMs?: number;
  /** Calls beyond the concurrency wait for a container, or get Lambda's throttling 429. @default 'queue' */
  readonly relayOverflow?: 'queue' | 'throttle';
}

/** One relay container: what Lambda keeps per execution environment. */
export interface RelayContainerParts {
  readonly relay: Relay;
  /** The container's lease holder (undefined without `budgetLeases`). */
  readonly admission: LeaseAdmission | undefined;
  readonly spool: SpoolingEventSink;
}

/** The running proxy. */
export interface LocalProxy {
  /** `http://127.0.0.1:<port>`; clients use `${url}/openai/v1`, `${url}/anthropic`, … */
  readonly url: string;
  readonly port: number;
  readonly metrics: MetricsSink;
  readonly guard: EdgeGuard;
  /** The relay's containers. */
  readonly pool: RelayPool<RelayContainerParts>;
  /** The relay of the container that served the latest call (or a fresh one's, before any call). */
  readonly relay: Relay;
  /** That container's budget admission (undefined without `budgetLeases`). */
  readonly admission: LeaseAdmission | undefined;
  /** Requests received on provider routes (health checks excluded). */
  requestCount(): number;
  /** Resolves once no request is in flight (every finished request has put its event). */
  idle(): Promise<void>;
  /** Stops accepting, waits up to 5 s for in-flight requests to record their events, then closes. */
  close(): Promise<void>;
}

function isFlagStore(f: FlagStore | FlagSource): f is FlagStore {
  return 'put' in f && 'listByOrg' in f;
}

function isKeyStore(k: KeyVerifier | ApiKeyStore): k is ApiKeyStore {
  return !('verify' in k);
}

function pepperFn(p: LocalProxyOptions['pepper']): () => Promise<string> {
  if (typeof p === 'string') return () => Promise.resolve(p);
  if (typeof p === 'function') return p;
  return () => p.get();
}

const HEALTH_BODY = JSON.stringify({ status: 'ok' });

/** Whether a response goes out over HTTP/2 (Node's compatibility response has a `stream`). */
function isHttp2(res: ServerResponse): boolean {
  return 'stream' in res;
}

/**
 * Starts the local proxy.
 *
 * @example
 * const proxy = await createLocalProxy({ port: 0, flags, apiKeys, sink, pepper, upstreams: mock.baseUrls });
 * const openai = new OpenAI({ baseURL: `${proxy.url}/openai/v1`, defaultHeaders: { 'Service-API-Key': key } });
 */
/**
 * How long a relay container's call waits for its shared loop-run write: longer than in AWS (50 ms), as
 * for the lease store, because the local stand-in shares this process and the machine's load.
 */
const LOCAL_SHARED_RUN_TIMEOUT_MS = 300;
/**
 * How long a held call waits for the trip log and the Resume record before it is refused: longer than in
 * AWS (300 ms) for the same reason. A Resume must end the hold at the next call even on a busy machine.
 */
const LOCAL_VERDICT_LOOKUP_TIMEOUT_MS = 2_000;

/** See {@link LocalProxyOptions.leaseStoreTimeoutMs}. */
export const LOCAL_LEASE_STORE_TIMEOUT_MS = 5_000;

export async function createLocalProxy(options: LocalProxyOptions): Promise<LocalProxy> {
  const now = options.now ?? Date.now;
  const metrics = options.metrics ?? new MemoryMetrics();
  const pepper = pepperFn(options.pepper);
  const guard = new EdgeGuard({
    flags: isFlagStore(options.flags) ? flagSourceFromStore(options.flags, now) : options.flags,
    pepper,
    metrics,
    now,
    ...(options.flagCacheTtlMs !== undefined ? { cacheTtlMs: options.flagCacheTtlMs } : {}),
    ...(options.throttle !== undefined ? { throttle: options.throttle } : {}),
  });
  // Per container, as in Lambda: key cache, lease holder, spool (issue 15.12: events outlive a stream
  // hiccup), upstream connections. Only a verifier passed in as such is shared (it cannot be copied).
  const buildContainer = (timers: Timers): RelayContainerParts => {
    const keys = isKeyStore(options.apiKeys)
      ? new ApiKeyAuthenticator({ keys: options.apiKeys, pepper, now })
      : options.apiKeys;
    const admission =
      options.budgetLeases === undefined
        ? undefined
        : new LeaseAdmission({
            leases: options.budgetLeases,
            metrics,
            now,
            timers,
            tokenCounter: countOpenAITokens,
            storeTimeoutMs: options.leaseStoreTimeoutMs ?? LOCAL_LEASE_STORE_TIMEOUT_MS,
          });
    const spool = new SpoolingEventSink({
      inner: options.sink,
      metrics,
      schedule: (fn, ms) => void timers.setTimeout(() => void fn(), ms),
    });
    // Per container as in Lambda: the policy cache and the loop counts live in the container's memory.
    const policies: OrgPolicySource =
      options.orgConfig === undefined
        ? { policyOf: () => DEFAULT_POLICY }
        : new OrgPolicyCache({ config: options.orgConfig, now });
    const relay = new Relay({
      keys,
      sink: spool,
      metrics,
      now,
      loops: new InlineLoopCheck({
        policies,
        now,
        metrics,
        ...(options.trips !== undefined
          ? {
              verdicts: new TripLogVerdicts(options.trips),
              verdictTimeoutMs: LOCAL_VERDICT_LOOKUP_TIMEOUT_MS,
            }
          : {}),
        ...(options.loopRuns !== undefined
          ? { shared: options.loopRuns, sharedTimeoutMs: LOCAL_SHARED_RUN_TIMEOUT_MS }
          : {}),
        ...(options.resumes !== undefined ? { resumes: options.resumes } : {}),
      }),
      ...(admission !== undefined ? { admission } : {}),
      ...(options.orgConfig !== undefined
        ? { deferredBillingAllowed: deferredBillingPolicy({ config: options.orgConfig }) }
        : {}),
      ...(options.pricingRates !== undefined
        ? {
            pricing: createOrgPricingSource({
              rates: options.pricingRates,
              now,
              ...(options.priceRegistry !== undefined ? { registry: options.priceRegistry } : {}),
            }),
          }
        : {}),
      ...(options.upstreams !== undefined ? { upstreams: options.upstreams } : {}),
      ...(options.priceUsd !== undefined ? { priceUsd: options.priceUsd } : {}),
      ...(options.tokenCounter !== undefined ? { tokenCounter: options.tokenCounter } : {}),
    });
    return { relay, admission, spool };
  };
  const pool = new RelayPool<RelayContainerParts>({
    build: (timers) => {
      const parts = buildContainer(timers);
      return {
        relay: parts,
        beforeFreeze: () => parts.admission?.invocationEnded() ?? Promise.resolve(),
        busy: () => parts.spool.spooled > 0,
        shutdown: async () => {
          await Promise.race([parts.spool.drained(), new Promise((r) => setTimeout(r, 5000).unref())]);
          await parts.admission?.releaseAll();
        },
        dispose: () => parts.relay.destroy(),
      };
    },
    now,
    ...(options.relayConcurrency !== undefined ? { concurrency: options.relayConcurrency } : {}),
    ...(options.relayIdleMs !== undefined ? { idleMs: options.relayIdleMs } : {}),
    ...(options.relayOverflow !== undefined ? { overflow: options.relayOverflow } : {}),
  });
  // What `proxy.relay` shows before the first call: a container that is never invoked.
  let spare: RelayContainerParts | undefined;
  const current = (): RelayContainerParts =>
    pool.lastUsed()?.relay ?? (spare ??= buildContainer(processTimers));
  const maxBody = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;

  let count = 0;
  const inflight = new Set<Promise<unknown>>();
  const track = (p: Promise<RelayOutcome>): void => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  const respond = (
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: string,
  ): void => {
    const h: Record<string, string> = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    if (isHttp2(res)) delete h.connection; // a connection-specific header is a protocol error in HTTP/2
    res.writeHead(status, h);
    res.end(body);
  };

  const proceed = (req: IncomingMessage, res: ServerResponse, decision: GuardDecision): void => {
    if (decision.action === 'respond') {
      req.resume(); // discard the body: the provider is never contacted
      const r = decision.response;
      // A kill or throttle on a Bedrock route is shaped for the AWS SDK (not retried; bedrock-refusal.ts).
      const shaped = isBedrockUrl(req.url ?? '')
        ? toBedrockError({ status: r.status, headers: r.headers as Record<string, string>, body: r.body })
        : { status: r.status, headers: r.headers as Record<string, string>, body: r.body };
      respond(res, shaped.status, shaped.headers, shaped.body);
      return;
    }
    const bodyRead = readBody(req, maxBody).then((body): RelayOutcome | Promise<RelayOutcome> => {
      if (body === 'aborted') return { status: 499, kind: 'cut', recorded: false };
      if (body === 'too_large') {
        if (!res.headersSent && !res.destroyed) {
          respond(
            res,
            413,
            { 'content-type': 'application/json', connection: 'close' },
            JSON.stringify({
              error: {
                message: `request body over ${maxBody} bytes`,
                type: 'invalid_request_error',
                code: 'too_large',
              },
            }),
          );
        }
        return { status: 413, kind: 'rejected', recorded: false };
      }
      return pool
        .invoke((c) => relayNodeRequest(c.relay, req, res, body))
        .then((out) => {
          if (out !== THROTTLED) return out;
          respond(res, THROTTLED_RESPONSE.status, { ...THROTTLED_RESPONSE.headers }, THROTTLED_RESPONSE.body);
          return { status: 429, kind: 'rejected', recorded: false };
        });
    });
    track(bodyRead);
  };

  // Set once listening. A page that rebinds its DNS name to 127.0.0.1 must not spend through the proxy.
  let hosts: ReadonlySet<string> = new Set();
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // HTTP/2 names the host in `:authority` (Node's compatibility API leaves `host` unset).
    if (!hostAllowed(req.headers.host ?? (req.headers[':authority'] as string | undefined), hosts)) {
      req.resume();
      respond(
        res,
        421,
        { 'content-type': 'application/json', connection: 'close' },
        JSON.stringify({
          error: {
            message: misdirectedMessage(port),
            type: 'invalid_request_error',
            code: 'misdirected_request',
          },
        }),
      );
      return;
    }
    if (req.url === '/healthz' && req.method === 'GET') {
      respond(res, 200, { 'content-type': 'application/json' }, HEALTH_BODY);
      return;
    }
    count++;
    const key = req.headers['service-api-key'];
    const session = req.headers['x-spendguard-session'];
    const fast = guard.checkCached(key, session);
    if (fast !== undefined) proceed(req, res, fast);
    else void guard.check(key, session).then((decision) => proceed(req, res, decision));
  };
  const http1 = createServer({ keepAliveTimeout: 65_000, noDelay: true }, onRequest);
  answerMalformedRequests(http1);
  // HTTP/2 without TLS on the same port, for the AWS SDK's Bedrock client (local/runtime/h2c.ts).
  const { front: server, http2: h2 } = dualProtocolServer(http1, onRequest);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PROXY_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, port);

  const idle = async (): Promise<void> => {
    while (inflight.size > 0) await Promise.allSettled([...inflight]);
  };
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    metrics,
    guard,
    pool,
    get relay() {
      return current().relay;
    },
    get admission() {
      return current().admission;
    },
    requestCount: () => count,
    idle,
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        http1.closeIdleConnections();
        h2.close();
        await Promise.race([idle(), new Promise((r) => setTimeout(r, 5000).unref())]);
        for (const s of sockets) s.destroy();
        await stopped;
        // Every container's lease work and slice return finish before close resolves (the caller may stop
        // the store next); each store operation is bounded by the admission's store timeout.
        await pool.close();
        spare?.relay.destroy();
      })();
      return closing;
    },
  };
}
