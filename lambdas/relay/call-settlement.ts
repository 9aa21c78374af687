/**
 * How a relayed call ends its reservation (issues 19.3, 19.4, 18.8): every path after admission settles
 * exactly once; a throw before anything was sent releases the reservation, after it keeps it; a call whose
 * usage is unread or only estimated settles at the reservation.
 */
import type { AdmissionTicket } from './budget-admission';
import type { TapResult } from './usage-tap';

/** How far a call got towards the provider (whether a throw must keep its reservation). */
export interface CallProgress {
  contacted: boolean;
}

/** Settles a reservation; a throwing admission never reaches the transport. */
export function settleQuietly(ticket: AdmissionTicket | undefined, actualNanos: number | null): void {
  try {
    ticket?.settle(actualNanos);
  } catch {
    // the admission's own failure; its reservation expires with its lease
  }
}

/**
 * Why a forwarded call's usage is not the provider's figure, or undefined when it is (or when the call
 * bills nothing: a provider error). `unread`: over the size bound, undecodable, not JSON; `estimated`: a
 * stream that ended without a usage frame.
 */
export function usageUnread(
  status: number,
  tapped: boolean,
  usage: TapResult['usage'] | undefined,
): 'unread' | 'estimated' | undefined {
  if (!tapped || status >= 400) return undefined;
  if (usage === undefined || !usage.ok) return 'unread';
  return usage.usage.estimated ? 'estimated' : undefined;
}
