import { scopesOf } from '../../core/keys/scopes';
import type { LedgerEntry } from '../../core/ledger/ledger-entry';
import { nanosToUsd } from '../../core/pricing';
import type { ApiKeyView, LedgerEntryView } from '../../core/schemas/api';
import type { ApiKeyRecord } from '../shared/stores/api-key-store';
import type { FlagRecord } from '../shared/stores/flag-store';

/** A ledger entry as the API shows it (core/schemas/api `ledgerEntryViewSchema`): dollars at the edge, nanos kept for exact sums. */
export function ledgerEntryView(e: LedgerEntry): LedgerEntryView {
  const costUsd = nanosToUsd(e.costNanos);
  // Entries written before issue 13 lack the fee and registry fields: their cost was the registry's.
  const registryCostNanos = e.registryCostNanos ?? e.costNanos;
  return {
    ...e,
    requestedModel: e.requestedModel ?? null,
    webSearchRequests: e.webSearchRequests ?? 0,
    registryCostNanos,
    toolFeesNanos: e.toolFeesNanos ?? 0,
    costUsd,
    registryCostUsd: nanosToUsd(registryCostNanos),
    discrepancyUsd: e.clientCostUsd === null ? null : roundUsd(e.clientCostUsd - costUsd),
  };
}

/** An API key as listed (core/schemas/api `apiKeyViewSchema`): never the hash. */
export function apiKeyView(k: ApiKeyRecord): ApiKeyView {
  return {
    publicId: k.publicId,
    prefix: k.prefix,
    name: k.name,
    createdAt: k.createdAt,
    revokedAt: k.revokedAt,
    scopes: [...scopesOf(k.scopes)],
  };
}

/**
 * An organization's flags as `GET /v1/flags` shows them: one row per flag. An organization-scope flag is
 * stored once per key and shown once (`keysFlagged` says how many keys carry it, `keyId` is null); key
 * and session flags are one row each. Strongest first (SUSPENDED, then the latest expiry), then newest.
 */
export function flagViews(flags: FlagRecord[]) {
  const byIdentity = new Map<string, ReturnType<typeof flagView> & { keysFlagged: number }>();
  for (const f of flags) {
    const id =
      f.scope === 'organization'
        ? `organization|${f.state}|${f.triggerType}|${f.setAt}|${f.expiresAt}`
        : `${f.scope}|${f.flagKey}`;
    const existing = byIdentity.get(id);
    if (existing) existing.keysFlagged++;
    else byIdentity.set(id, { ...flagView(f), keysFlagged: 1 });
  }
  return [...byIdentity.values()].sort(
    (a, b) =>
      (a.state === b.state ? 0 : a.state === 'SUSPENDED' ? -1 : 1) ||
      b.expiresAt.localeCompare(a.expiresAt) ||
      b.setAt.localeCompare(a.setAt),
  );
}

function flagView(f: FlagRecord) {
  return {
    scope: f.scope,
    keyId: f.scope === 'organization' ? null : f.keyId,
    sessionId: f.scope === 'session' ? f.sessionId : null,
    state: f.state,
    triggerType: f.triggerType,
    observedValue: f.observedValue,
    thresholdValue: f.thresholdValue,
    mode: f.mode,
    setAt: f.setAt,
    expiresAt: new Date(f.expiresAt * 1000).toISOString(),
  };
}

function roundUsd(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}
