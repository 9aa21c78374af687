/**
 * Whether the pipeline has given its loop verdict since a relay's in-line hold began (issue 19.6): the
 * guardrail consumer records a trip when it writes a flag (lambdas/guardrail-consumer), and the record
 * stays when a person resumes the flag. So a held call can tell "the pipeline has not flagged yet" (refuse
 * on) from "the pipeline flagged, and the flag is gone" (resumed or expired: the hold ends, the flag
 * check in front of the relay decides), which the flag items alone cannot: Resume deletes them.
 */
import type { TripLog } from '../shared/stores/trip-log';

/** Clocks of the relay and the consumer may differ by this much (both NTP-synchronized in AWS). */
const CLOCK_SKEW_MS = 500;
/** Trips read per lookup: a verdict seconds old is among the newest of any organization. */
const TRIPS_READ = 25;

/** The pipeline's loop verdicts, as the relay asks about them. */
export interface LoopVerdictSource {
  /**
   * When the pipeline recorded its newest `token_loop_identical` trip for this key (any key of the
   * organization when `keyId` is null) at or after `sinceMs` (ms), or undefined when it has not.
   */
  verdictSince(orgId: string, keyId: string | null, sinceMs: number): Promise<number | undefined>;
}

/** A {@link LoopVerdictSource} over the trip log (one Query of the organization's newest trips). */
export class TripLogVerdicts implements LoopVerdictSource {
  constructor(private readonly trips: Pick<TripLog, 'recent'>) {}

  async verdictSince(orgId: string, keyId: string | null, sinceMs: number): Promise<number | undefined> {
    let newest: number | undefined;
    for (const t of await this.trips.recent(orgId, TRIPS_READ)) {
      if (t.triggerType !== 'token_loop_identical' || (keyId !== null && t.keyId !== keyId)) continue;
      const at = Date.parse(t.at);
      if (at >= sinceMs - CLOCK_SKEW_MS && (newest === undefined || at > newest)) newest = at;
    }
    return newest;
  }
}
