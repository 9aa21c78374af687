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
import type { TelemetryEvent } from '../../core/events/telemetry-event';
import { costOfEvent } from '../../core/ledger/event-cost';
import { calculateCost, listPricing, nanosToUsd, type CallPricing } from '../../core/pricing';
import { requestFlavorOf, type RequestFlavor } from '../../core/providers';
import {
  isReasoningModel,
  ReasoningBaseline,
  reasoningEffortOf,
  type NormalizedUsage,
  type TokenCounter,
  type TypicalReasoning,
} from '../../core/usage';
import { noopMetrics, type MetricsSink } from '../edge-guard/metrics';
import type { EventSink } from '../shared/event-sink';
import type { AdmissionDecision, AdmissionTicket, RelayAdmission } from './budget-admission';
import {
  API_KEY_HEADER,
  clientResponseHeaders,
  CONTEXT_HEADERS,
  headerValue,
  upstreamRequestHeaders,
} from './headers';
import { AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../shared/api-key-auth';
import { RelayKeyAuth, type KeyCheck, type KeyVerifier } from './key-auth';
import { buildTelemetryEvent, envelopeFor } from './proxy-event';
import { estimateInputTokens, fingerprintOfRequest } from './request-info';
import { callShapeOf, type CallShape } from '../../core/admission/call-shape';
import { requestShapeReaderOf } from '../../core/providers/request-shape';
import { UsageTap } from './usage-tap';
import { decodableAcceptEncoding } from './accept-encoding';
import { settleQuietly, usageUnread, type CallProgress } from './call-settlement';
import { OriginCheck, type OriginSecretSource } from '../shared/origin-check';
import { UpstreamRoutes, type Route } from './upstream-routes';

import {
  errorBody,
  JSON_TYPE,
  refuseDeferred,
  refuseOverBudget,
  reject,
  respondAsGuard,
} from './relay-responses';
import type { GuardDecision } from '../edge-guard/decide';
import { duplicateHeader, requestProblem } from './request-validation';
import { bedrockUsageFromHeaders } from '../../core/usage/bedrock';
import { isBedrockUrl } from './bedrock-route';
import { awsShaped } from './bedrock-refusal';
import type { InlineLoopCheck, LoopCount } from './loop-check';
import type { RelayOutcome, RelayRequest, RelayResponder, ResponseBody } from './relay-transport';

export type { RelayOutcome, RelayRequest, RelayResponder, ResponseBody } from './relay-transport';

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
  readonly originSecret?: OriginSecretSource;
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
  /** How long the provider's status line is awaited after the client left before it. @default 5000 ms */
  readonly abandonedStatusWaitMs?: number;
  readonly eventId?: () => string;
  /**
   * Budget admission (docs/admission.md): reserves each call's worst case against the organization's hard
   * caps before the provider is contacted, settles it with the actual cost after. Omit to forward without.
   */
  readonly admission?: RelayAdmission;
  /**
   * What the ledger prices an organization's calls with (its rates, the registry in force): admission
   * reserves and settles in that unit, so the counter and the pipeline's figure agree (issue 18.2). Never
   * rejects (a failure prices at list). @default list prices from the bundled registry
   */
  readonly pricing?: (orgId: string) => Promise<CallPricing>;
  /**
   * Whether an organization allows batch, fine-tuning and background calls under its hard cap (they bill
   * after the call, so admission cannot bound them: issue 18.6). @default none does
   */
  readonly deferredBillingAllowed?: (orgId: string) => boolean | Promise<boolean>;
  /**
   * The kill flags, checked again at the origin (issue 19.5): the edge guard's cached lookup with the same
   * scopes (organization, key, session), so a call that reaches the Function URL without CloudFront meets
   * the same kill. Omit where the guard already ran in the same process (the local proxy).
   */
  readonly flags?: FlagCheck;
  /**
   * The in-line loop check (issue 19.6): the organization's layer-2 policy applied per container before
   * the provider is contacted, so a loop is refused on the call after the pipeline's verdict call even when
   * the provider answers faster than the pipeline flags. Omit for none.
   */
  readonly loops?: InlineLoopCheck;
  /** Keep-alive agents to the upstreams. @default one http and one https agent per relay */
  readonly agents?: { readonly http?: http.Agent; readonly https?: https.Agent };
}

export { ORIGIN_SECRET_REFRESH_INTERVAL_MS, ORIGIN_SECRET_RETRY_MS } from '../shared/origin-check';
export { decodableAcceptEncoding } from './accept-encoding';

/** Bedrock request headers (`x-amzn-bedrock-service-tier`, guardrail, trace…) kept although `x-amzn-*` is dropped. */
const BEDROCK_HEADERS = ['x-amzn-bedrock-'] as const;
/**
 * Whether a request is signed with AWS Signature Version 4 (IAM credentials, not a Bedrock API key): in
 * its Authorization header, or presigned in its query string.
 */
function isSigV4(authorization: string | readonly string[] | undefined, url: string): boolean {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  if (typeof value === 'string' && value.trimStart().startsWith('AWS4-HMAC-SHA256')) return true;
  const query = url.indexOf('?');
  return query >= 0 && /(?:^|&)x-amz-(?:algorithm|signature)=/i.test(url.slice(query + 1));
}
/** Bodies up to this size are fingerprinted before forwarding (the loop check needs it); larger ones after. */
const EARLY_FINGERPRINT_BYTES = 256 * 1024;
/**
 * How long the relay waits for the provider's status line after the client left before it: an error bills
 * nothing (the reservation is released); a success, or no answer by then, keeps the worst case.
 */
const ABANDONED_STATUS_WAIT_MS = 5_000;

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
  private readonly upstreams: UpstreamRoutes;
  private readonly origin: OriginCheck | undefined;
  /** Reasoning tokens the organizations' calls reported, per model and effort (this container's view). */
  private readonly reasoning = new ReasoningBaseline();

  constructor(private readonly opts: RelayOptions) {
    this.auth = new RelayKeyAuth(opts.keys, { now: opts.now ?? Date.now });
    this.metrics = opts.metrics ?? noopMetrics;
    this.now = opts.now ?? Date.now;
    this.upstreams = new UpstreamRoutes(opts.upstreams);
    this.origin =
      opts.originSecret === undefined
        ? undefined
        : new OriginCheck(opts.originSecret, {
            now: this.now,
            onUnavailable: () =>
              this.metrics.count('RelayUnverified', { Reason: 'origin_secret_unavailable' }),
          });
    this.httpAgent =
      opts.agents?.http ?? new http.Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo' });
    this.httpsAgent =
      opts.agents?.https ?? new https.Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo' });
  }

  /**
   * Relays one request. Resolves after the response has ended AND the event is on the sink (the put
   * starts only after the last byte is written, so it never delays the response). Never rejects.
   */
  async handle(req: RelayRequest, reply: RelayResponder): Promise<RelayOutcome> {
    // The relay's own refusals on Bedrock routes are shaped for the AWS SDK (bedrock-refusal.ts).
    const res = isBedrockUrl(req.url) ? awsShaped(reply) : reply;
    try {
      const startedAt = this.now();
      const origin = this.origin === undefined ? true : await this.origin.allowed(req.headers);
      if (origin === 'unavailable') {
        return reject(
          res,
          503,
          'origin_verification_unavailable',
          'The Spendguard proxy cannot verify this request right now; retry shortly.',
          { headers: { 'retry-after': '1', 'x-should-retry': 'true' } },
        );
      }
      if (!origin) {
        return reject(
          res,
          403,
          'forbidden',
          'This endpoint only accepts requests through the Spendguard proxy URL.',
        );
      }
      const route = this.upstreams.route(req.url);
      if (route !== undefined && 'error' in route) return reject(res, 400, 'invalid_region', route.error);
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
      if (this.opts.flags !== undefined) {
        const decision = await this.opts.flags.check(
          req.headers[API_KEY_HEADER],
          req.headers[CONTEXT_HEADERS.sessionId],
        );
        if (decision.action === 'respond') {
          this.metrics.count('RelayFlagRefused', { Reason: decision.reason });
          if (decision.reason === 'suspended' && check.principal !== undefined) {
            this.opts.loops?.flagSeen({ orgId: check.principal.orgId, keyId: check.principal.publicId });
          }
          return respondAsGuard(res, decision.response);
        }
      }
      // Everything Node's client would throw on is answered here, before anything is reserved (issue 19.3).
      if (duplicateHeader(req.headers, CONTEXT_HEADERS.sessionId)) {
        return reject(
          res,
          400,
          'invalid_request',
          `Send one ${CONTEXT_HEADERS.sessionId} header with one value (no commas): repeated session headers are read differently by each hop.`,
        );
      }
      const headers = upstreamRequestHeaders(
        req.headers,
        route.entry.id === 'bedrock' ? BEDROCK_HEADERS : undefined,
      );
      const problem = requestProblem(headers, route.upstream.prefix + route.rest);
      if (problem !== undefined) return reject(res, 400, 'invalid_request', problem.message);
      if (route.entry.id === 'bedrock' && isSigV4(req.headers.authorization, req.url)) {
        // The signature covers the host and path the client signed (the proxy's), so Bedrock would refuse
        // it after a round trip; say why now, and where such clients go.
        return reject(
          res,
          400,
          'sigv4_not_proxyable',
          'This request is signed with AWS SigV4, whose signature covers the proxy host, so Bedrock would reject it. ' +
            'Through the proxy use a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK, or the client token option); ' +
            'for IAM credentials (SigV4) use the SDK path: instrumentAwsClient(new BedrockRuntimeClient(…)) from @service/sdk.',
        );
      }
      // The one parse of the request: admission, forwarding and the event all read it (issue 19.2).
      const flavor = requestFlavorOf(route.entry, route.endpoint);
      const read = callShapeOf(req.body, route.endpoint, requestShapeReaderOf(route.entry, flavor));
      if (!read.ok) return reject(res, 400, 'invalid_request', read.message);
      let shape = read.shape;
      let counted: LoopCount | undefined;
      // Small bodies are fingerprinted before anything is sent (tens of µs): the loop check compares the
      // request with the runs the containers share before the provider is contacted.
      let early: string | null | undefined;
      if (req.body.byteLength > 0 && req.body.byteLength <= EARLY_FINGERPRINT_BYTES) {
        try {
          early = fingerprintOfRequest(flavor, req.body, route.endpoint);
        } catch {
          early = null;
        }
      }
      if (this.opts.loops !== undefined && check.principal !== undefined) {
        const entered = this.opts.loops.enter(
          {
            orgId: check.principal.orgId,
            keyId: check.principal.publicId,
            sessionId: headerValue(req.headers, CONTEXT_HEADERS.sessionId),
          },
          shape.model,
          early,
        );
        const gate = entered instanceof Promise ? await entered : entered;
        if (gate.refusal !== undefined) return respondAsGuard(res, gate.refusal);
        // A call without a body (a model list) has no identity for layer 2: it neither counts nor resets.
        if (req.body.byteLength > 0) counted = gate.forwarded;
      }
      let ticket: AdmissionTicket | undefined;
      // Only requests that can generate are admitted (a GET of the model list costs nothing).
      if (
        this.opts.admission !== undefined &&
        check.principal !== undefined &&
        req.method === 'POST' &&
        req.body.byteLength > 0
      ) {
        if (shape.deferred !== null && (await this.deferredAllowed(check.principal.orgId))) {
          shape = { ...shape, deferred: null }; // bounded as an ordinary call
        }
        const decision = await this.admit(
          this.opts.admission,
          req,
          route,
          flavor,
          shape,
          check.principal.orgId,
        );
        if (decision.kind === 'refused') {
          return shape.deferred !== null
            ? refuseDeferred(res, shape.deferred)
            : refuseOverBudget(res, decision);
        }
        ticket = decision.ticket;
      }
      const call: CallProgress = { contacted: false };
      try {
        return await this.forward(
          req,
          reply,
          route,
          check,
          startedAt,
          ticket,
          headers,
          call,
          shape,
          counted,
          early,
        );
      } catch (err) {
        // Every path after admission settles (issue 19.3): nothing sent upstream releases the reservation,
        // a call that may have reached the provider keeps its worst case. Settling is idempotent.
        settleQuietly(ticket, call.contacted ? null : 0);
        throw err;
      }
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

  /** Never rejects: an admission failure forwards the call (fail open, design decision 6). */
  private async admit(
    admission: RelayAdmission,
    req: RelayRequest,
    route: Route,
    flavor: RequestFlavor,
    shape: CallShape,
    orgId: string,
  ): Promise<AdmissionDecision> {
    try {
      const pricing = await this.pricingOf(orgId);
      return await admission.admit(orgId, {
        provider: route.entry.id,
        flavor,
        model: shape.model,
        body: req.body,
        atMs: this.now(),
        shape,
        pricing,
      });
    } catch {
      this.metrics.count('AdmissionFailOpen', { Reason: 'internal_error' });
      return { kind: 'admitted', ticket: { reservedNanos: 0, settle: () => undefined } };
    }
  }

  private forward(
    req: RelayRequest,
    res: RelayResponder,
    route: Route,
    check: Extract<KeyCheck, { kind: 'valid' | 'unverified' }>,
    startedAt: number,
    ticket: AdmissionTicket | undefined,
    headers: Record<string, string | string[]>,
    call: CallProgress,
    shape: CallShape,
    counted: LoopCount | undefined,
    /** The body's fingerprint when it was taken before forwarding (small bodies), else undefined. */
    early: string | null | undefined,
  ): Promise<RelayOutcome> {
    const { entry, upstream } = route;
    // Usage must stay readable (issue 19.4): ask only for codings the usage tap decodes.
    const accept = decodableAcceptEncoding(req.headers['accept-encoding']);
    if (accept === undefined) delete headers['accept-encoding'];
    else headers['accept-encoding'] = accept;
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
      /** The provider answered but the usage could not be followed: settle at the worst case. */
      let keepReservation = false;

      const settle = (kind: RelayOutcome['kind'], cut: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(abandoned);
        // The settlement below must run whatever these hooks do (issue 19.3).
        try {
          stopListening?.();
        } catch {
          // the transport's hook failed; the client listener dies with the request
        }
        let endedAt = startedAt;
        try {
          endedAt = this.now();
        } catch {
          // a clock that throws: the event keeps the start time
        }
        if (fingerprint === undefined && counted !== undefined) {
          // A large body, fingerprinted only now that the response is out (its event reuses it).
          try {
            fingerprint = fingerprintOfRequest(
              requestFlavorOf(entry, route.endpoint),
              req.body,
              route.endpoint,
            );
          } catch {
            fingerprint = null;
          }
          counted(fingerprint);
        }
        void this.record(req, route, check, shape, {
          startedAt,
          endedAt,
          status,
          cut,
          tap,
          upstreamUrl,
          fingerprint,
          leased: ticket?.leased === true,
        }).then(
          ({ costNanos, ...recorded }) => {
            // The reservation ends with the call (a stream cut by the client included); an unknown cost
            // settles at the reservation, never below it.
            settleQuietly(ticket, keepReservation ? null : costNanos);
            resolve({ status, kind, ...recorded });
          },
          () => {
            settleQuietly(ticket, null);
            resolve({ status, kind, recorded: false });
          },
        );
      };

      let upstreamReq: http.ClientRequest | undefined;
      // Not const: the hook may call onAbort (and so settle, which reads this) before it returns.
      // eslint-disable-next-line prefer-const
      let stopListening: (() => void) | undefined;
      /** The client left before the answer; the provider's status line is awaited until this timer. */
      let abandoned: ReturnType<typeof setTimeout> | undefined;
      const keepWorstCase = (): void => {
        // The provider has the request and bills what it generates: the hard cap keeps the call's
        // worst case (issue 18.8), as for unread usage.
        keepReservation = true;
        this.metrics.count('RelayUsageUnread', { Reason: 'abandoned' });
      };
      const onAbort = (): void => {
        if (!responded && call.contacted && !settled) {
          // The client left before the answer. Whether the provider bills depends on its answer: an
          // error (a bad provider credential, a refused request) bills nothing, and a client that leaves
          // at once must not charge the cap a worst case it cannot cost (a key could burn its
          // organization's cap for free so). The status line decides, awaited a few seconds at most.
          status = 499;
          abandoned = setTimeout(() => {
            upstreamReq?.destroy();
            keepWorstCase();
            settle('cut', true);
          }, this.opts.abandonedStatusWaitMs ?? ABANDONED_STATUS_WAIT_MS);
          abandoned.unref?.();
          return;
        }
        upstreamReq?.destroy();
        if (!responded) status = 499;
        settle('cut', true);
      };

      const onResponse = (up: http.IncomingMessage): void => {
        responded = true;
        if (abandoned !== undefined) {
          clearTimeout(abandoned);
          up.destroy(); // no one to send it to
          if ((up.statusCode ?? 502) >= 400)
            status = up.statusCode ?? 502; // billed nothing: settles at 0
          else keepWorstCase(); // 499: generating, or generated; the worst case stands
          settle('cut', true);
          return;
        }
        status = up.statusCode ?? 502;
        let out: ResponseBody;
        try {
          out = res.start(status, clientResponseHeaders(up.headers, res.keepsContentLength));
        } catch {
          // Headers the transport refuses (invalid characters), or a client already gone. The provider
          // answered, so it may bill: the reservation stands.
          up.destroy();
          status = 502;
          keepReservation = true;
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
            requestBody: shape.parsed,
            ...(this.opts.tokenCounter ? { tokenCounter: this.opts.tokenCounter } : {}),
            ...(check.principal !== undefined
              ? { typicalReasoning: this.typicalReasoningOf(check.principal.orgId) }
              : {}),
            ...(this.opts.maxJsonBytes ? { maxJsonBytes: this.opts.maxJsonBytes } : {}),
            // Bedrock InvokeModel reports its tier in a header only (the body is the model's own).
            serviceTier: headerValue(up.headers, 'x-amzn-bedrock-service-tier'),
            ...(entry.id === 'bedrock' && {
              headerUsage: () =>
                bedrockUsageFromHeaders((name) => headerValue(up.headers, name), {
                  url: upstreamUrl,
                  requestBody: shape.parsed,
                }),
            }),
          },
        );
        tap = copy;
        up.on('data', (chunk: Buffer) => {
          // The client first; the usage copy after.
          try {
            if (!out.write(chunk)) {
              up.pause();
              out.once('drain', () => up.resume());
            }
          } catch {
            // A transport that throws on write has lost its client: stop reading ('close' settles).
            up.destroy();
            return;
          }
          copy.push(chunk);
        });
        up.once('end', () => {
          try {
            out.end();
          } catch {
            // the client left at the last byte; the call is complete and metered all the same
          }
          settle('forwarded', false);
        });
        up.once('close', () => {
          if (settled) return;
          // The upstream broke off mid-body (or the client aborted): cut the client's response too, so it
          // sees a truncated message rather than a complete-looking one.
          try {
            out.destroy();
          } catch {
            // already gone
          }
          settle('cut', true);
        });
        up.on('error', () => undefined); // 'close' follows and handles it
      };

      const unreachable = (): void => {
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
      };

      const send = (retry: boolean): void => {
        let sent: http.ClientRequest;
        try {
          sent = (upstream.secure ? https : http).request({
            hostname: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: upstream.prefix + route.rest,
            headers,
            agent: upstream.secure ? this.httpsAgent : this.httpAgent,
          });
        } catch {
          // Node refused the request before sending anything (request-validation missed a case): the
          // event records a 502 that bills nothing, so the reservation is released.
          unreachable();
          return;
        }
        call.contacted = true;
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
          unreachable();
        });
        sent.end(req.body.byteLength > 0 ? req.body : undefined);
      };

      stopListening = req.onClientGone?.(onAbort);
      if (settled) return; // the client was gone already
      send(true);
      // Small bodies were fingerprinted before admission; large ones are after the response, so they
      // never delay a fast first byte.
      if (req.body.byteLength <= EARLY_FINGERPRINT_BYTES) {
        fingerprint =
          early !== undefined
            ? early
            : fingerprintOfRequest(requestFlavorOf(entry, route.endpoint), req.body, route.endpoint);
        // Counted now, before the answer: the client's next call must meet the hold this one may put.
        counted?.(fingerprint);
      }
    });
  }

  /** Builds and puts the one envelope of a finished request. Never rejects. */
  private async record(
    req: RelayRequest,
    route: Route,
    check: Extract<KeyCheck, { kind: 'valid' | 'unverified' }>,
    shape: CallShape,
    end: {
      startedAt: number;
      endedAt: number;
      status: number;
      cut: boolean;
      tap: UsageTap | undefined;
      upstreamUrl: string;
      /** Computed while the upstream worked, or undefined to compute now. */
      fingerprint: string | null | undefined;
      /** A capped lease counts the call (its event says so). */
      leased: boolean;
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
      if (usage !== undefined && !usage.estimated) this.learnReasoning(principal.orgId, usage, shape);
      const flavor = requestFlavorOf(route.entry, route.endpoint);
      const model = usage?.model ?? shape.model;
      // Cut before the answer (499): the provider had the request, so its prompt is estimated.
      const billable = end.status === 499 || (end.tap !== undefined && end.status < 400);
      const event = buildTelemetryEvent({
        eventId: this.opts.eventId?.() ?? randomUUID(),
        leased: end.leased,
        startedAt: end.startedAt,
        endedAt: end.endedAt,
        provider: route.entry.id,
        requestedModel: model,
        endpoint: route.endpoint,
        statusCode: end.status,
        usage,
        billable,
        estimatedInputTokens: () =>
          estimateInputTokens(flavor, req.body, shape, model, this.opts.tokenCounter),
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
      const unread = usageUnread(end.status, end.tap !== undefined, tapped?.usage);
      if (unread !== undefined) this.metrics.count('RelayUsageUnread', { Reason: unread });
      // Usage unread or only estimated: the hard cap keeps the call's worst case (issues 19.4, 18.8).
      const costNanos =
        this.opts.admission === undefined || unread !== undefined
          ? null
          : actualCostNanos(event, await this.pricingOf(principal.orgId));
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

  /** Whether the organization lets calls that bill later through under a hard cap. Never rejects. */
  private async deferredAllowed(orgId: string): Promise<boolean> {
    try {
      return (await this.opts.deferredBillingAllowed?.(orgId)) === true;
    } catch {
      return false;
    }
  }

  /** The organization's pricing (cached by the source); list prices when it fails. Never rejects. */
  private async pricingOf(orgId: string): Promise<CallPricing> {
    if (this.opts.pricing === undefined) return listPricing();
    try {
      return await this.opts.pricing(orgId);
    } catch {
      return listPricing();
    }
  }

  /** The organization's learned reasoning per model and effort, for the estimate of a stream without usage. */
  private typicalReasoningOf(orgId: string): TypicalReasoning {
    return (model, effort) => this.reasoning.typical(orgId, model, effort);
  }

  /** Learns from a call that reported its reasoning tokens (issue 18.8). */
  private learnReasoning(orgId: string, usage: NormalizedUsage, shape: CallShape): void {
    if (usage.model === null || !isReasoningModel(usage.model)) return;
    this.reasoning.observe(
      orgId,
      usage.model,
      reasoningEffortOf(shape.parsed(), usage.model),
      usage.reasoningTokens,
    );
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

/** The edge guard's decision for a key and session (`EdgeGuard` fits). Never rejects. */
export interface FlagCheck {
  check(
    apiKey: string | readonly string[] | undefined,
    session?: string | readonly string[],
  ): Promise<GuardDecision>;
}

/** Prices a call with the bundled registry (core/pricing); the server's price is authoritative. */
export function registryPriceUsd(provider: string, usage: NormalizedUsage, tsMs: number): number | null {
  return nanosToUsd(calculateCost({ provider, usage, at: tsMs }).costNanos);
}

/**
 * What a finished call cost, for settling its reservation: the provider's own figure when it reports one
 * (OpenRouter), else the price of the event's tokens at the organization's rates — the ledger's own
 * decision (core/ledger/event-cost). A provider error carries no tokens and settles at 0; a call cut before
 * its answer carries its estimated prompt (docs/admission.md). Null when it cannot be priced (the
 * reservation then stands).
 */
export function actualCostNanos(event: TelemetryEvent, pricing: CallPricing = listPricing()): number | null {
  try {
    return costOfEvent(event, pricing.registry, pricing.orgRates).costNanos;
  } catch {
    return null;
  }
}
