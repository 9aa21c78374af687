import { flagKeyFor } from '../../core/keys';
import type { ApiKeyStore } from './stores/api-key-store';
import type { FlagRecord, FlagState, FlagStore } from './stores/flag-store';

/** Flag lifetimes (spec 3 and 4.2): derived server-side, never taken from the caller. */
export const FLAG_TTL_SECONDS: Record<FlagState, number> = { SUSPENDED: 2 * 3600, THROTTLED: 30 * 60 };

export interface EnforcementDeps {
  keys: ApiKeyStore;
  flags: FlagStore;
  pepper: string;
}

export interface PushRequest {
  orgId: string;
  action: FlagState;
  triggerType: string;
  observedValue: number;
  thresholdValue: number;
  mode: string;
  /** Shorter lifetime than the default (a hard cap whose period resets sooner); never longer. */
  ttlSeconds?: number;
}

export interface PushResult {
  action: FlagState;
  expiresAt: string;
  ttlSeconds: number;
  /** How many active keys of the organization now carry the flag. */
  keysFlagged: number;
}

/**
 * Writes the organization's kill flag: one item per active (unrevoked) key, keyed by the HMAC of the key
 * prefix, so the edge can find it from the key a request presents without ever seeing the raw key.
 * Used by the enforcement endpoint and, unchanged, by the guardrail consumer when a layer trips.
 */
export async function pushFlag(deps: EnforcementDeps, req: PushRequest, nowMs: number): Promise<PushResult> {
  const ttlSeconds = Math.max(
    1,
    Math.min(req.ttlSeconds ?? FLAG_TTL_SECONDS[req.action], FLAG_TTL_SECONDS[req.action]),
  );
  const expiresAt = Math.floor(nowMs / 1000) + ttlSeconds;
  const keys = (await deps.keys.listByOrg(req.orgId)).filter((k) => k.revokedAt === null);
  const setAt = new Date(nowMs).toISOString();
  await Promise.all(
    keys.map((k) => {
      const flag: FlagRecord = {
        flagKey: flagKeyFor(k.prefix, deps.pepper),
        orgId: req.orgId,
        state: req.action,
        triggerType: req.triggerType,
        observedValue: req.observedValue,
        thresholdValue: req.thresholdValue,
        mode: req.mode,
        setAt,
        expiresAt,
      };
      return deps.flags.put(flag);
    }),
  );
  return {
    action: req.action,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    ttlSeconds,
    keysFlagged: keys.length,
  };
}

/** Clears every flag of the organization (manual resume, spec 3: action ACTIVE → RESUMED). */
export async function clearFlags(deps: EnforcementDeps, orgId: string, nowMs: number): Promise<number> {
  const keys = await deps.keys.listByOrg(orgId);
  const existing = await deps.flags.listByOrg(orgId, nowMs);
  // Delete by the org's keys as well as by the index, so that an expired-but-undeleted item is gone too.
  const flagKeys = new Set([
    ...existing.map((f) => f.flagKey),
    ...keys.map((k) => flagKeyFor(k.prefix, deps.pepper)),
  ]);
  await Promise.all([...flagKeys].map((fk) => deps.flags.delete(fk)));
  return existing.length;
}
