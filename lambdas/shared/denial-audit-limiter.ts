/**
 * How many refused attempts (`role.denied`) a person gets recorded in the audit log: every one up to a
 * rate, so that someone who retries a forbidden route in a loop cannot flood the log (each entry is a
 * write and stays for the retention period). Past the rate the 403 is still answered; the attempts
 * left out are counted in the person's next recorded entry (`after.suppressed`). Per API container, in
 * memory, bounded like the token buckets.
 */
import { KeyedTokenBuckets } from '../../core/rate-limit/token-bucket';

/** Refusals recorded per person: 20 at once, then one every 2 s. */
export const DENIAL_AUDIT_RATE = Object.freeze({ burst: 20, perSecond: 0.5 });
/** Most people whose left-out refusals are counted at once (the oldest count is dropped past it). */
const MAX_COUNTED = 10_000;

export class DenialAuditLimiter {
  private readonly buckets = new KeyedTokenBuckets(DENIAL_AUDIT_RATE);
  private readonly leftOut = new Map<string, number>();

  /**
   * Whether the refusal of `who` at `nowMs` is recorded; when it is, how many of theirs were left out
   * since their last recorded one.
   */
  admit(
    who: string,
    nowMs: number,
  ): { readonly record: true; readonly suppressed: number } | { readonly record: false } {
    if (this.buckets.take(who, nowMs).allowed) {
      const suppressed = this.leftOut.get(who) ?? 0;
      this.leftOut.delete(who);
      return { record: true, suppressed };
    }
    const count = (this.leftOut.get(who) ?? 0) + 1;
    this.leftOut.delete(who); // re-inserted last: Map order is recency order
    this.leftOut.set(who, count);
    if (this.leftOut.size > MAX_COUNTED) {
      const oldest = this.leftOut.keys().next().value;
      if (oldest !== undefined) this.leftOut.delete(oldest);
    }
    return { record: false };
  }
}
