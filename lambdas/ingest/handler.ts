import middy from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fromClientEvent, fromIngestEvent } from '../../core/events/from-wire';
import type { EventEnvelope, TelemetryEvent } from '../../core/events/telemetry-event';
import {
  clientEventBatchSchema,
  formatZodIssues,
  ingestBatchOf,
  ingestRequestSchema,
} from '../../core/schemas';
import { enforcementFor } from '../shared/enforcement-state';
import { KeyedTokenBuckets } from '../../core/rate-limit/token-bucket';
import { SinkUnavailableError } from '../shared/event-sink';
import { bodyText, httpErrors, json, parseJsonText } from '../shared/http';
import { httpErrorHandler } from '../shared/middleware/http-error-handler';
import type { Services } from '../shared/services';

/** Spec 4.1 / 8: at most 100 events and 1 MB per request. */

/** How far ahead of the server's clock an event's timestamp may be (clock drift), in ms. */
export const MAX_CLOCK_AHEAD_MS = 5 * 60_000;

export const MAX_EVENTS = 100;
export const MAX_BODY_BYTES = 1024 * 1024;
/** What ingest tells a client to wait when the stream cannot take the batch. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Per-key ingest rate limit (issue 15.11), per container: a burst of 40 requests, then 20 per second
 * sustained, for each API key (up to 100 events each, so 2,000 events/s). The SDK flushes every few
 * seconds, so only a runaway or hostile client meets it; the 429 carries `Retry-After`.
 */
export const INGEST_RATE_LIMIT = Object.freeze({ burst: 40, perSecond: 20 });

export interface IngestDeps {
  services: Services;
  logger: Logger;
  metrics: Metrics;
  /** Per-key buckets. @default one {@link KeyedTokenBuckets} of {@link INGEST_RATE_LIMIT} per handler (container) */
  rateLimit?: KeyedTokenBuckets;
}

/**
 * POST /api/ingest (spec 4.1: key in the body, spec 2.3 events) and POST /v1/events (the SDK's form,
 * spec 2.1, key in `Service-API-Key`). The checks run cheapest first, and nothing is written until the
 * whole batch is valid: a rejected batch stores nothing. Accepted events go to Kinesis in one record per
 * organization; pricing, the ledger and the guardrails run downstream (ingest never waits for them).
 */
export function createIngestHandler(deps: IngestDeps) {
  const { services, metrics } = deps;
  const buckets = deps.rateLimit ?? new KeyedTokenBuckets(INGEST_RATE_LIMIT);

  const handle = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const text = bodyText(event);
    if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
      throw httpErrors.tooLarge(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    }
    // The shared parse: a `__proto__` member anywhere is a 400 naming it, as on every other route.
    const body = parseJsonText(text);
    const events = isRecord(body) ? body.events : undefined;
    if (Array.isArray(events) && events.length > MAX_EVENTS) {
      throw httpErrors.tooLarge(`a batch holds at most ${MAX_EVENTS} events; got ${events.length}`);
    }

    const isClientForm = event.rawPath === '/v1/events';
    const presented = isClientForm
      ? event.headers['service-api-key']
      : isRecord(body)
        ? body.apiKey
        : undefined;
    if (typeof presented !== 'string' || presented.length === 0) {
      throw httpErrors.unauthorized(
        isClientForm
          ? 'missing API key: send the organization API key (abn_…) in the Service-API-Key header'
          : 'missing API key: send the organization API key (abn_…) as the body member apiKey',
      );
    }
    const principal = await services.apiKeys.require(presented, 'ingest');
    // After authentication: an unauthenticated caller cannot spend someone else's bucket.
    const admitted = buckets.take(principal.publicId, services.now());
    if (!admitted.allowed) {
      metrics.addMetric('IngestRateLimited', MetricUnit.Count, 1);
      throw httpErrors.tooManyRequests(
        `this API key sends more than ${INGEST_RATE_LIMIT.perSecond} requests per second; retry after ${admitted.retryAfterSeconds} s`,
        admitted.retryAfterSeconds,
      );
    }

    const receivedAt = services.now();
    let telemetry: TelemetryEvent[];
    if (isClientForm) {
      const parsed = clientEventBatchSchema.safeParse(body);
      if (!parsed.success) throw httpErrors.badRequest('invalid event batch', formatZodIssues(parsed.error));
      telemetry = parsed.data.events.map((e) => fromClientEvent(e));
      if (parsed.data.droppedEvents) {
        metrics.addMetric('ClientDroppedEvents', MetricUnit.Count, parsed.data.droppedEvents);
      }
    } else {
      const parsed = ingestRequestSchema.safeParse(ingestBatchOf(body));
      if (!parsed.success)
        throw httpErrors.badRequest('invalid ingest request', formatZodIssues(parsed.error));
      telemetry = parsed.data.events.map((e) => fromIngestEvent(e, receivedAt, () => crypto.randomUUID()));
    }

    // A call reported as made in the future would count against a day or month that has not begun (a key
    // could spend tomorrow's cap tonight). Clocks drift: a few minutes ahead are accepted.
    const ahead = telemetry.flatMap((e, i) =>
      e.ts > receivedAt + MAX_CLOCK_AHEAD_MS
        ? [
            {
              path: `events[${i}].timestamp`,
              message: `is ${Math.round((e.ts - receivedAt) / 60_000)} min ahead of the server's clock; at most ${MAX_CLOCK_AHEAD_MS / 60_000} min ahead is accepted`,
            },
          ]
        : [],
    );
    if (ahead.length > 0) throw httpErrors.badRequest('events dated in the future', ahead);

    const envelope: EventEnvelope = {
      v: 1,
      orgId: principal.orgId,
      keyId: principal.publicId,
      receivedAt,
      events: telemetry,
    };
    try {
      await services.sink.put([envelope]);
    } catch (err) {
      if (err instanceof SinkUnavailableError) {
        deps.logger.error('event stream unavailable', { error: err });
        metrics.addMetric('IngestUnavailable', MetricUnit.Count, 1);
        throw httpErrors.unavailable('the event stream is unavailable; retry later', RETRY_AFTER_SECONDS);
      }
      throw err;
    }
    metrics.addMetric('EventsIngested', MetricUnit.Count, telemetry.length);
    // The key's current flags, so an SDK stops a tripped agent within one flush (CONTRACTS.md §1).
    const enforcement = await enforcementFor(services, principal.orgId, principal.publicId, services.now());
    return json(200, { status: 'ok', count: telemetry.length, enforcement });
  };

  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(handle).use(
    httpErrorHandler(deps.logger),
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
