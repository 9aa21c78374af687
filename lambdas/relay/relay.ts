/**
 * The relay core, transport-agnostic: a request (method, path, headers, body bytes, a client-gone hook) in;
 * the provider's response streamed out through a {@link RelayResponder}; one telemetry envelope on the
 * {@link EventSink} after the last byte. The Lambda streaming adapter and the local node:http adapter
 * both drive it.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { EventEnvelope } from '../../core/events/telemetry-event';
import { constantTimeEqual } from '../../core/keys';
import type { TelemetryEvent } from '../../core/events/telemetry-event';
import { costOfEvent } from '../../core/ledger/event-cost';
import { calculateCost, getDefaultPriceRegistry, nanosToUsd } from '../../core/pricing';
import { providerBySlug, requestFlavorOf, type ProviderEntry } from '../../core/providers';
import type { NormalizedUsage, TokenCounter } from '../../core/usage';
import { noopMetrics, type MetricsSink } from '../edge-guard/metrics';
import type { EventSink } from '../shared/event-sink';
import type { VersionedSecretSource } from '../shared/secrets';
import type { AdmissionDecision, AdmissionTicket, RelayAdmission } from './budget-admission';
import {
  API_KEY_HEADER,
  clientResponseHeaders,
  CONTEXT_HEADERS,
  headerValue,
  ORIGIN_SECRET_HEADER,
  upstreamRequestHeaders,
  type HeaderBag,
} from './headers';
import { AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../shared/api-key-auth';
import { RelayKeyAuth, type KeyCheck, type KeyVerifier } from './key-auth';
import { buildTelemetryEvent, envelopeFor } from './proxy-event';
import { estimateInputTokens, fingerprintOfRequest, requestedModelOf } from './request-info';
import { UsageTap } from './usage-tap';

/** One request as the adapter received it. Header names are lowercase. */
export interface RelayRequest {
  readonly method: string;
  /** `/<provider slug>/<provider path>[?query]` */
  readonly url: string;
  readonly headers: HeaderBag;
  /** The whole request body. */
  readonly body: Buffer;
  /**
   * Registers `listener` for a client that goes away before the response is complete (the upstream
   * call is then aborted); returns a function that unregisters it. A plain callback rather than an
   * AbortSignal: EventTarget costs several µs per request on the hot path.
   */
  readonly onClientGone?: (listener: () => void) => () => void;
}

/** The body half of a response: a Node Writable (ServerResponse, Lambda's response stream) fits. */
export interface ResponseBody {
  write(chunk: Buffer): boolean;
  end(chunk?: Buffer | string): unknown;
  once(event: 'drain', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

/** How a transport sends a response. */
export interface RelayResponder {
  /** Sends status and headers; the body follows through the returned writer. */
  start(status: number, headers: Record<string, string | string[]>): ResponseBody;
  /** Whether the provider's `content-length` may be passed on (false when the transport re-chunks). */
  readonly keepsContentLength: boolean;
}

/** What happened to one request (for adapters, metrics and tests). */
export interface RelayOutcome {
  /** Status sent to the client (499: the client left before a response). */
  readonly status: number;
  readonly kind: 'forwarded' | 'rejected' | 'upstream_error' | 'cut';
  /** The envelope put on the sink, if any. */
  readonly envelope?: EventEnvelope;
  /** Whether the envelope reached the sink. */
  readonly recorded: boolean;
}

/** Options of {@link Relay}. */
export interface RelayOptions {
  /** Verifies `Service-API-Key` (the shared ApiKeyAuthenticator). */
  readonly keys: KeyVerifier;
  readonly sink: EventSink;
  /**
   * The CloudFront origin secret; requests without it in `x-spendguard-origin-secret` get 403.
   * Either one fixed value, or the accepted versions of a rotated secret (current, previous), which the
   * relay re-reads when a request presents none of them (at most once per
   * {@link ORIGIN_SECRET_REFRESH_INTERVAL_MS}). Omit to skip the check (the local proxy, which has no
   * CloudFront in front).
   */
  readonly originSecret?: (() => Promise<string>) | VersionedSecretSource;
  /** Upstream base URL per provider slug, overriding the catalog's `upstreamBaseUrl`. */
  readonly upstreams?: Readonly<Partial<Record<string, string>>>;
  readonly metrics?: MetricsSink;
  readonly now?: () => number;
  /** Exact token counter for estimates (the relay passes the o200k tokenizer when it has it). */
  readonly tokenCounter?: TokenCounter;
  /**
   * The relay's own price for a call in USD (spec 2.2 `cost_usd`; the server re-prices every event).
   * `null` records no price. @default the bundled price registry (core/pricing `calculateCost`)
   */
  readonly priceUsd?: ((provider: string, usage: NormalizedUsage, tsMs: number) => number | null) | null;
  /** Largest JSON response read for usage. @default 16 MiB */
  readonly maxJsonBytes?: number;
  readonly eventId?: () => string;
  /**
   * Budget admission (docs/admission.md): reserves each call's worst case against the organization's hard
   * caps before the provider is contacted, settles it with the actual cost after. Omit to forward without.
   */
  readonly admission?: RelayAdmission;
  /** Keep-alive agents to the upstreams. @default one http and one https agent per relay */
  readonly agents?: { readonly http?: http.Agent; readonly https?: https.Agent };
}

interface Upstream {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: number;
  /** Path prefix of the base URL, without a trailing slash ('' for none). */
  readonly prefix: string;
  /** Base URL as text, for the usage context. */
  readonly origin: string;
}

interface Route {
  readonly entry: ProviderEntry;
  readonly upstream: Upstream;
  /** Provider path with the query, e.g. `/v1/chat/completions?x=1`. */
  readonly rest: string;
  /** Provider path without the query. */
  readonly endpoint: string;
}

const JSON_TYPE = 'application/json';
/**
 * Shortest time between two re-reads of the origin secret after a mismatch: after a rotation a warm relay
 * recovers on the first request with the new header; a stream of wrong headers costs at most one read
 * (two GetSecretValue calls) per interval per container.
 */
export const ORIGIN_SECRET_REFRESH_INTERVAL_MS = 10_000;
/** Bodies up to this size are fingerprinted while the upstream request is in flight. */
const EARLY_FINGERPRINT_BYTES = 256 * 1024;

/**
 * @example
 * const relay = new Relay({ keys: services.apiKeys, sink: services.sink });
 * await relay.handle({ method: 'POST', url: '/openai/v1/chat/completions', headers, body }, responder);
 */
export class Relay {
  private readonly auth: RelayKeyAuth;
  private readonly metrics: MetricsSink;
  private readonly now: () => number;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly upstreams = new Map<string, Upstream>();
  /** The accepted origin-secret values, once read. */
  private originSecrets: readonly string[] | undefined;
  /** When the origin secret was last re-read because of a mismatch (rate limit). */
  private originSecretRefreshedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: RelayOptions) {
    this.auth = new RelayKeyAuth(opts.keys, { now: opts.now ?? Date.now });
    this.metrics = opts.metrics ?? noopMetrics;
    this.now = opts.now ?? Date.now;
    this.httpAgent =
      opts.agents?.http ?? new http.Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo' });
    this.httpsAgent =
      opts.agents?.https ?? new https.Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo' });
  }

  /**
   * Relays one request. Resolves after the response has ended AND the event is on the sink (the put
   * starts only after the last byte is written, so it never delays the response). Never rejects.
   */
  async handle(req: RelayRequest, res: RelayResponder): Promise<RelayOutcome> {
    const startedAt = this.now();
    try {
      if (this.opts.originSecret !== undefined && !(await this.originAllowed(req.headers))) {
        return reject(
          res,
          403,
          'forbidden',
          'This endpoint only accepts requests through the Spendguard proxy URL.',
        );
      }
      const route = this.route(req.url);
      if (route === undefined) {
        return reject(
          res,
          404,
          'unknown_provider',
          'Unknown provider: use /<provider>/<provider path>, e.g. /openai/v1/chat/completions.',
        );
      }
      const check = await this.auth.check(headerValue(req.headers, API_KEY_HEADER));
      if (check.kind === 'invalid') {
        return reject(
          res,
          401,
          'invalid_service_api_key',
          'The Service-API-Key is unknown, malformed or revoked.',
        );
      }
      if (check.kind === 'forbidden') {
        return reject(
          res,
          403,
          'scope_missing',
          `This Service-API-Key lacks the '${check.needed}' scope; create a key with it (POST /v1/keys { name, scopes }).`,
          { type: 'permission_error' },
        );
      }
      if (check.kind === 'unavailable') {
        // Identity fails closed (decision 6): only keys verified moments ago pass while keys cannot be read.
        this.metrics.count('RelayUnverified', { Reason: 'key_store_unavailable' });
        return reject(
          res,
          503,
          'key_verification_unavailable',
          'API keys cannot be verified right now; retry shortly.',
          {
            headers: {
              'retry-after': String(AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS),
              'x-should-retry': 'true',
            },
          },
        );
      }
      if (check.kind === 'unverified') this.metrics.count('RelayUnverified');
      let ticket: AdmissionTicket | undefined;
      // Only requests that can generate are admitted (a GET of the model list costs nothing).
      if (
        this.opts.admission !== undefined &&
        check.principal !== undefined &&
        req.method === 'POST' &&
        req.body.byteLength > 0
      ) {
        const decision = await this.admit(this.opts.admission, req, route, check.principal.orgId);
        if (decision.kind === 'refused') return refuseOverBudget(res, decision);
        ticket = decision.ticket;
      }
      return await this.forward(req, res, route, check, startedAt, ticket);
    } catch {
      // Only reachable through a bug: answer if nothing was sent yet, never throw into the transport.
      return reject(res, 500, 'internal_error', 'Internal error in the Spendguard relay.');
    }
  }

  /** Closes idle upstream sockets. */
  destroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private async originAllowed(headers: HeaderBag): Promise<boolean> {
    const presented = headerValue(headers, ORIGIN_SECRET_HEADER);
    const matches = (values: readonly string[]) =>
      presented !== undefined && values.some((v) => constantTimeEqual(presented, v));
    if (this.originSecrets === undefined) {
      try {
        this.originSecrets = await this.readOriginSecrets(false);
      } catch {
        // Fail open (design decision 6): without the secret the relay cannot tell, so it lets the request
        // through and counts it; the edge guard and the key check still apply.
        this.metrics.count('RelayUnverified', { Reason: 'origin_secret_unavailable' });
        return true;
      }
    }
    if (matches(this.originSecrets)) return true;
    // A mismatch may mean the secret was rotated since this container read it: re-read, rate-limited so
    // that requests with a wrong header cannot turn into a flood of Secrets Manager calls.
    const now = this.now();
    if (presented === undefined || now - this.originSecretRefreshedAt < ORIGIN_SECRET_REFRESH_INTERVAL_MS) {
      return false;
    }
    this.originSecretRefreshedAt = now;
    try {
      this.originSecrets = await this.readOriginSecrets(true);
    } catch {
      return false; // the cached values stay; a read failure is no reason to admit a wrong header
    }
    return matches(this.originSecrets);
  }

  private async readOriginSecrets(refresh: boolean): Promise<readonly string[]> {
    const source = this.opts.originSecret as NonNullable<RelayOptions['originSecret']>;
    if (typeof source === 'function') return [await source()];
    return source.accepted(refresh);
  }

  /** Never rejects: an admission failure forwards the call (fail open, design decision 6). */
  private async admit(
    admission: RelayAdmission,
    req: RelayRequest,
    route: Route,
    orgId: string,
  ): Promise<AdmissionDecision> {
    try {
      return await admission.admit(orgId, {
        provider: route.entry.id,
        flavor: requestFlavorOf(route.entry, route.endpoint),
        model: requestedModelOf(req.body, route.endpoint),
        body: req.body,
        atMs: this.now(),
      });
    } catch {
      this.metrics.count('AdmissionFailOpen', { Reason: 'internal_error' });
      return { kind: 'admitted', ticket: { reservedNanos: 0, settle: () => undefined } };
    }
  }

  private route(url: string): Route | undefined {
    if (url.charCodeAt(0) !== 47 /* / */) return undefined;
    let end = 1;
    while (end < url.length) {
      const c = url.charCodeAt(end);
      if (c === 47 || c === 63 /* ? */) break;
      end++;
    }
    const slug = url.slice(1, end);
    const entry = providerBySlug(slug);
    if (entry === undefined) return undefined;
    const upstream = this.upstreamFor(entry);
    if (upstream === undefined) return undefined;
    let rest = url.slice(end);
    if (rest.length === 0 || rest.charCodeAt(0) === 63) rest = '/' + rest;
    const q = rest.indexOf('?');
    return { entry, upstream, rest, endpoint: q === -1 ? rest : rest.slice(0, q) };
  }

  private upstreamFor(entry: ProviderEntry): Upstream | undefined {
    const cached = this.upstreams.get(entry.slug);
    if (cached !== undefined) return cached;
    const base = this.opts.upstreams?.[entry.slug] ?? entry.upstreamBaseUrl;
    let u: URL;
    try {
      u = new URL(base);
    } catch {
      return undefined;
    }
    const secure = u.protocol === 'https:';
    const upstream: Upstream = {
      secure,
      hostname: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port === '' ? (secure ? 443 : 80) : Number(u.port),
      prefix: u.pathname.replace(/\/+$/, ''),
      origin: `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`,
    };
    this.upstreams.set(entry.slug, upstream);
    return upstream;
  }

  private forward(
    req: RelayRequest,
    res: RelayResponder,
    route: Route,
    check: Extract<KeyCheck, { kind: 'valid' | 'unverified' }>,
    startedAt: number,
    ticket: AdmissionTicket | undefined,
  ): Promise<RelayOutcome> {
    const { entry, upstream } = route;
    const headers = upstreamRequestHeaders(req.headers);
    if (req.body.byteLength > 0 || req.headers['content-length'] !== undefined) {
      headers['content-length'] = String(req.body.byteLength);
    }
    const upstreamUrl = upstream.origin + route.rest;

    return new Promise<RelayOutcome>((resolve) => {
      let tap: UsageTap | undefined;
      let fingerprint: string | null | undefined;
      let status = 0;
      let settled = false;
      let responded = false;

      const settle = (kind: RelayOutcome['kind'], cut: boolean): void => {
        if (settled) return;
        settled = true;
        stopListening?.();
        const endedAt = this.now();
        void this.record(req, route, check, {
          startedAt,
          endedAt,
          status,
          cut,
          tap,
          upstreamUrl,
          fingerprint,
        }).then(({ costNanos, ...recorded }) => {
          // The reservation ends with the call (a stream cut by the client included); an unknown cost
          // settles at the reservation, never below it.
          ticket?.settle(costNanos);
          resolve({ status, kind, ...recorded });
        });
      };

      let upstreamReq: http.ClientRequest | undefined;
      // Not const: the hook may call onAbort (and so settle, which reads this) before it returns.
      // eslint-disable-next-line prefer-const
      let stopListening: (() => void) | undefined;
      const onAbort = (): void => {
        upstreamReq?.destroy();
        if (!responded) status = 499;
        settle('cut', true);
      };

      const onResponse = (up: http.IncomingMessage): void => {
        responded = true;
        status = up.statusCode ?? 502;
        let out: ResponseBody;
        try {
          out = res.start(status, clientResponseHeaders(up.headers, res.keepsContentLength));
        } catch {
          // Headers the transport refuses (invalid characters), or a client already gone.
          up.destroy();
          status = 502;
          settle('upstream_error', true);
          return;
        }
        const copy = new UsageTap(
          status,
          up.headers['content-type'],
          headerValue(up.headers, 'content-encoding'),
          {
            provider: entry,
            url: upstreamUrl,
            requestBody: req.body,
            ...(this.opts.tokenCounter ? { tokenCounter: this.opts.tokenCounter } : {}),
            ...(this.opts.maxJsonBytes ? { maxJsonBytes: this.opts.maxJsonBytes } : {}),
          },
        );
        tap = copy;
        up.on('data', (chunk: Buffer) => {
          // The client first; the usage copy after.
          if (!out.write(chunk)) {
            up.pause();
            out.once('drain', () => up.resume());
          }
          copy.push(chunk);
        });
        up.once('end', () => {
          out.end();
          settle('forwarded', false);
        });
        up.once('close', () => {
          if (settled) return;
          // The upstream broke off mid-body (or the client aborted): cut the client's response too, so it
          // sees a truncated message rather than a complete-looking one.
          out.destroy();
          settle('cut', true);
        });
        up.on('error', () => undefined); // 'close' follows and handles it
      };

      const send = (retry: boolean): void => {
        const sent = (upstream.secure ? https : http).request({
          hostname: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: upstream.prefix + route.rest,
          headers,
          agent: upstream.secure ? this.httpsAgent : this.httpAgent,
        });
        upstreamReq = sent;
        sent.on('response', onResponse);
        sent.on('error', (err: NodeJS.ErrnoException) => {
          if (settled || responded) return; // after a response, its own 'close' settles
          // A kept-alive socket the provider had just closed: nothing was processed, so sending again on
          // a fresh connection is safe (the pattern Node documents for `reusedSocket`).
          if (retry && sent.reusedSocket && err.code === 'ECONNRESET') {
            send(false);
            return;
          }
          status = 502;
          this.metrics.count('RelayUpstreamError');
          const body = errorBody(
            502,
            'upstream_unreachable',
            `The ${entry.displayName} API could not be reached.`,
          );
          const h: Record<string, string> = { 'content-type': JSON_TYPE };
          if (res.keepsContentLength) h['content-length'] = String(Buffer.byteLength(body));
          try {
            res.start(502, h).end(body);
          } catch {
            // the client is gone too
          }
          settle('upstream_error', false);
        });
        sent.end(req.body.byteLength > 0 ? req.body : undefined);
      };

      stopListening = req.onClientGone?.(onAbort);
      if (settled) return; // the client was gone already
      send(true);
      // The provider takes far longer to answer than this takes: fingerprint small bodies while waiting
      // (large ones after the response, so they never delay a fast first byte).
      if (req.body.byteLength <= EARLY_FINGERPRINT_BYTES) {
        fingerprint = fingerprintOfRequest(requestFlavorOf(entry, route.endpoint), req.body, route.endpoint);
      }
    });
  }

  /** Builds and puts the one envelope of a finished request. Never rejects. */
  private async record(
    req: RelayRequest,
    route: Route,
    check: Extract<KeyCheck, { kind: 'valid' | 'unverified' }>,
    end: {
      startedAt: number;
      endedAt: number;
      status: number;
      cut: boolean;
      tap: UsageTap | undefined;
      upstreamUrl: string;
      /** Computed while the upstream worked, or undefined to compute now. */
      fingerprint: string | null | undefined;
    },
  ): Promise<{ envelope?: EventEnvelope; recorded: boolean; costNanos: number | null }> {
    try {
      const principal = check.principal;
      if (principal === undefined) {
        this.metrics.count('RelayEventFailed', { Reason: 'org_unknown' });
        if (end.tap !== undefined) await end.tap.finish();
        return { recorded: false, costNanos: null };
      }
      const tapped = end.tap === undefined ? undefined : await end.tap.finish();
      const usage = tapped?.usage.ok === true ? tapped.usage.usage : undefined;
      const flavor = requestFlavorOf(route.entry, route.endpoint);
      const requestedModel = usage?.model != null ? null : requestedModelOf(req.body, route.endpoint);
      const model = usage?.model ?? requestedModel;
      // Cut before the answer (499): the provider had the request, so its prompt is estimated.
      const billable = end.status === 499 || (end.tap !== undefined && end.status < 400);
      const event = buildTelemetryEvent({
        eventId: this.opts.eventId?.() ?? randomUUID(),
        startedAt: end.startedAt,
        endedAt: end.endedAt,
        provider: route.entry.id,
        requestedModel: model,
        endpoint: route.endpoint,
        statusCode: end.status,
        usage,
        billable,
        estimatedInputTokens: () => estimateInputTokens(flavor, req.body, model, this.opts.tokenCounter),
        stream: tapped?.stream ?? false,
        cut: end.cut,
        fingerprint:
          end.fingerprint !== undefined
            ? end.fingerprint
            : fingerprintOfRequest(flavor, req.body, route.endpoint),
        verified: check.kind === 'valid',
        clientCostUsd: usage !== undefined ? this.price(route.entry.id, usage, end.startedAt) : null,
        context: {
          sessionId: headerValue(req.headers, CONTEXT_HEADERS.sessionId) ?? null,
          projectId: headerValue(req.headers, CONTEXT_HEADERS.projectId) ?? null,
          environment: headerValue(req.headers, CONTEXT_HEADERS.environment) ?? null,
          featureId: headerValue(req.headers, CONTEXT_HEADERS.featureId) ?? null,
        },
      });
      const envelope = envelopeFor(principal.orgId, principal.publicId, event, this.now());
      const costNanos = this.opts.admission === undefined ? null : actualCostNanos(event);
      try {
        await this.opts.sink.put([envelope]);
        return { envelope, recorded: true, costNanos };
      } catch {
        this.metrics.count('RelayEventFailed', { Reason: 'sink_error' });
        return { envelope, recorded: false, costNanos };
      }
    } catch {
      this.metrics.count('RelayEventFailed', { Reason: 'internal_error' });
      return { recorded: false, costNanos: null };
    }
  }

  private price(provider: string, usage: NormalizedUsage, ts: number): number | null {
    const priceUsd = this.opts.priceUsd === undefined ? registryPriceUsd : this.opts.priceUsd;
    if (priceUsd === null) return null;
    try {
      const usd = priceUsd(provider, usage, ts);
      return usd !== null && Number.isFinite(usd) && usd >= 0 ? usd : null;
    } catch {
      return null;
    }
  }
}

/** Prices a call with the bundled registry (core/pricing); the server's price is authoritative. */
export function registryPriceUsd(provider: string, usage: NormalizedUsage, tsMs: number): number | null {
  return nanosToUsd(calculateCost({ provider, usage, at: tsMs }).costNanos);
}

/**
 * What a finished call cost, for settling its reservation: the provider's own figure when it reports one
 * (OpenRouter), else the registry's price of the event's tokens. A provider error carries no tokens and
 * settles at 0; a call cut before its answer carries its estimated prompt (docs/admission.md).
 * Null when it cannot be priced (the reservation then stands).
 */
export function actualCostNanos(event: TelemetryEvent): number | null {
  try {
    // The pipeline's own cost decision (provider-reported first, tool fees included), on the bundled prices.
    return costOfEvent(event, getDefaultPriceRegistry()).costNanos;
  } catch {
    return null;
  }
}

/** 429 `budget_exceeded` for a call whose worst case does not fit (spec 1.5, design decisions 7 and 11). */
function refuseOverBudget(
  res: RelayResponder,
  d: Extract<AdmissionDecision, { kind: 'refused' }>,
): RelayOutcome {
  const label = d.period === 'day' ? 'daily' : 'monthly';
  const cap = d.capNanos === null ? '' : ` ($${nanosToUsd(d.capNanos)})`;
  const body = JSON.stringify({
    error: d.retryable
      ? {
          // Room is only held by other slices or calls in flight (or the budget store is unreachable).
          message:
            `Budget busy: what is left under the organization's ${label} hard cap${cap} is held by calls ` +
            `in flight; retry in ${d.retryAfterSeconds} s.`,
          type: 'budget_busy',
          code: `budget_${label}_held`,
        }
      : {
          message:
            `Budget Exceeded: this call's worst-case cost does not fit under the organization's ${label} ` +
            `hard cap${cap}. Calls resume when the ${d.period === 'day' ? 'UTC day' : 'UTC month'} ends ` +
            `(in ${d.retryAfterSeconds} s) or when the cap is raised.`,
          type: 'budget_exceeded',
          code: `budget_${label}_hard`,
        },
  });
  const headers: Record<string, string> = {
    'content-type': JSON_TYPE,
    'cache-control': 'no-store',
    'retry-after': String(d.retryAfterSeconds),
    'x-should-retry': d.retryable ? 'true' : 'false',
  };
  if (res.keepsContentLength) headers['content-length'] = String(Buffer.byteLength(body));
  try {
    res.start(429, headers).end(body);
  } catch {
    // the client is gone
  }
  return { status: 429, kind: 'rejected', recorded: false };
}

/**
 * OpenAI's error shape; `type` as OpenAI uses it: `api_error` for a 5xx, `invalid_request_error`
 * otherwise, unless the caller names a finer one (`permission_error`).
 */
function errorBody(status: number, code: string, message: string, type?: string): string {
  return JSON.stringify({
    error: { message, type: type ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), code },
  });
}

/** A response of the relay's own (no provider contact, no event). */
function reject(
  res: RelayResponder,
  status: number,
  code: string,
  message: string,
  extra: { readonly type?: string; readonly headers?: Record<string, string> } = {},
): RelayOutcome {
  const body = errorBody(status, code, message, extra.type);
  const headers: Record<string, string> = {
    'content-type': JSON_TYPE,
    'x-should-retry': 'false',
    ...extra.headers,
  };
  if (res.keepsContentLength) headers['content-length'] = String(Buffer.byteLength(body));
  try {
    res.start(status, headers).end(body);
  } catch {
    // headers were already sent, or the client is gone
  }
  return { status, kind: 'rejected', recorded: false };
}
