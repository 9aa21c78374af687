/**
 * How long a changed hard cap takes to be in force at every relay container, and the wait that makes
 * `PUT /v1/budget` answer only once it is: an admin who sets or lowers a cap and then makes a call
 * through the proxy meets the new cap (issue 18: calls that do not fit are refused before the provider).
 *
 * A container admits under caps it read at most {@link CAPS_CACHE_TTL_MS} ago: an uncapped answer lapses
 * that long after its caps were read, and under a capped slice the call that finds them older waits for a
 * fresh read (lambdas/relay/budget-admission.ts). The config table is read in the relay's own region.
 */

/** Longest a relay container admits under caps it read earlier. */
export const CAPS_CACHE_TTL_MS = 500;

/** Timer granularity and the read's own time, on top of the cache's lifetime. */
const CAPS_READ_ALLOWANCE_MS = 100;

/** What `PUT /v1/budget` waits after writing changed caps before it answers. */
export const CAPS_PROPAGATION_MS = CAPS_CACHE_TTL_MS + CAPS_READ_ALLOWANCE_MS;
