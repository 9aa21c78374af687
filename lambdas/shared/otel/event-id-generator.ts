import { createHash } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace';

/**
 * Trace and span ids derived from the ledger event they describe (SHA-256 of organization, API key
 * and event id: deduplication is per key, so two keys' events with one id are two calls and two spans),
 * through the SDK's own IdGenerator seam. A record replayed after a crash re-sends spans with the
 * same ids, which trace stores keep as one span, and a ledger row's trace can be found from its event
 * id. {@link next} names the event of the span about to start and {@link done} forgets it once started
 * (the tracer asks for the span id, then the trace id, synchronously in `startSpan`); spans started
 * without it get random ids.
 */
export class EventIdGenerator implements IdGenerator {
  private pending: string | null = null;
  private readonly random = new RandomIdGenerator();

  /** The (organization, key, event) of the next span; consumed by that span's trace and span ids. */
  next(orgId: string, keyId: string, eventId: string): void {
    this.pending = createHash('sha256')
      .update(orgId)
      .update('\0')
      .update(keyId)
      .update('\0')
      .update(eventId)
      .digest('hex');
  }

  /** Forgets the event named by {@link next}. */
  done(): void {
    this.pending = null;
  }

  generateTraceId(): string {
    return this.pending?.slice(0, 32) ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.pending?.slice(32, 48) ?? this.random.generateSpanId();
  }
}
