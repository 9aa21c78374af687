/**
 * Key scopes: what a program holding a key may do (issue 15.3). A key carries any non-empty subset of
 * the three; a key stored before scopes existed, or created without a list, carries all three, so no
 * existing integration breaks.
 *
 * - `proxy`: calls through the Spendguard proxy (the relay refuses a key without it).
 * - `ingest`: telemetry in (`POST /v1/events`, `POST /api/ingest`) and budget leases.
 * - `read`: the v1 API's reads (ledger, spend, forecast, budget) with `Service-API-Key`.
 *
 * Pure: no I/O.
 * @module
 */

/** Every scope, in display order. */
export const KEY_SCOPES = ['proxy', 'ingest', 'read'] as const;
/** One permission of a key. */
export type KeyScope = (typeof KEY_SCOPES)[number];

/**
 * What the budget-lease routes need (CONTRACTS §5): an SDK sending telemetry, or a relay-side holder.
 * For `ApiKeyAuthenticator.require(key, LEASE_SCOPES)`.
 */
export const LEASE_SCOPES: readonly KeyScope[] = ['ingest', 'proxy'];

const KNOWN = new Set<string>(KEY_SCOPES);

/** True when `s` names a scope. */
export function isKeyScope(s: unknown): s is KeyScope {
  return typeof s === 'string' && KNOWN.has(s);
}

/**
 * The scopes a stored key carries: every scope when the record has none (a key from before scopes, or
 * one created without a list); otherwise the known names it lists, once each, in {@link KEY_SCOPES}
 * order. Unknown names are dropped (a downgrade after a newer writer added one grants nothing extra).
 *
 * @example scopesOf(undefined) // ['proxy', 'ingest', 'read']
 * @example scopesOf(['read', 'proxy', 'read']) // ['proxy', 'read']
 */
export function scopesOf(stored: unknown): readonly KeyScope[] {
  if (!Array.isArray(stored)) return KEY_SCOPES;
  const present = new Set(stored.filter(isKeyScope));
  return KEY_SCOPES.filter((s) => present.has(s));
}

/**
 * True when `granted` holds at least one of `needed` (a route that programs reach in several ways
 * names each way that suffices, e.g. leases: `ingest` or `proxy`).
 */
export function grantsAny(granted: readonly KeyScope[], needed: KeyScope | readonly KeyScope[]): boolean {
  if (typeof needed === 'string') return granted.includes(needed);
  return needed.some((s) => granted.includes(s));
}
