import { flagKeyFor } from '../../core/keys';
import { flagItemKey, orgFlagItemKey, sessionFlagItemKey } from './flag-item-keys';
import type { Services } from './services';
import type { ApiKeyRecord, ApiKeyStore } from './stores/api-key-store';
import {
  strongestFlag,
  type FlagRecord,
  type FlagScope,
  type FlagState,
  type FlagStore,
} from './stores/flag-store';

/** Flag lifetimes (spec 3 and 4.2): derived server-side, never taken from the caller. */
export const FLAG_TTL_SECONDS: Record<FlagState, number> = { SUSPENDED: 2 * 3600, THROTTLED: 30 * 60 };

export interface EnforcementDeps {
  keys: ApiKeyStore;
  flags: FlagStore;
  pepper: string;
}

/** The enforcement dependencies out of the services (reads the pepper). */
export async function enforcementDeps(
  services: Pick<Services, 'keys' | 'flags' | 'pepper'>,
): Promise<EnforcementDeps> {
  return { keys: services.keys, flags: services.flags, pepper: await services.pepper.get() };
}

/** What a flag applies to. `keyId` is required for key and session scope, `sessionId` for session scope. */
export interface FlagTarget {
  scope: FlagScope;
  keyId: string | null;
  sessionId: string | null;
}

/** Raised when a target names no key for a key or session scope (a caller's mistake, not the store's). */
export class FlagTargetError extends Error {
  override readonly name = 'FlagTargetError';
}

/**
 * Where a flag of `scope` for this key and session goes. The documented fallback: a session-scope flag
 * for events that named no session is a key-scope flag (the key is the narrowest thing known to have
 * run away). Organization scope ignores the key and session.
 */
export function flagTarget(scope: FlagScope, keyId: string | null, sessionId: string | null): FlagTarget {
  if (scope === 'organization') return { scope, keyId: null, sessionId: null };
  if (keyId === null) throw new FlagTargetError(`a ${scope}-scope flag needs a keyId`);
  if (scope === 'session' && sessionId !== null && sessionId.length > 0) return { scope, keyId, sessionId };
  return { scope: 'key', keyId, sessionId: null };
}

/** Whether a stored flag is at `target` (for organization scope: any key's copy). */
export function isAt(flag: FlagRecord, target: FlagTarget): boolean {
  if (flag.scope !== target.scope) return false;
  if (target.scope === 'organization') return true;
  return flag.keyId === target.keyId && (target.scope === 'key' || flag.sessionId === target.sessionId);
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
  /** @default organization scope */
  target?: FlagTarget;
}

export interface PushResult extends FlagTarget {
  action: FlagState;
  expiresAt: string;
  ttlSeconds: number;
  /** How many flag items were written: one per active key for organization scope, else 0 or 1. */
  keysFlagged: number;
}

/**
 * Writes a kill flag at its scope (layout: flag-item-keys.ts): organization scope writes one copy per
 * active key (keys created later get theirs from {@link coverKeyWithOrgFlags}); key and session scope
 * write one item for that key (or session). Each write is conditional: an item holding a stronger
 * unexpired flag keeps it (no downgrade, issue 15.7). Used by the enforcement endpoint and by the
 * guardrail consumer when a layer trips.
 */
export async function pushFlag(deps: EnforcementDeps, req: PushRequest, nowMs: number): Promise<PushResult> {
  const target = req.target ?? flagTarget('organization', null, null);
  const ttlSeconds = Math.max(
    1,
    Math.min(req.ttlSeconds ?? FLAG_TTL_SECONDS[req.action], FLAG_TTL_SECONDS[req.action]),
  );
  const expiresAt = Math.floor(nowMs / 1000) + ttlSeconds;
  const setAt = new Date(nowMs).toISOString();
  const keys = await keysAt(deps, req.orgId, target);
  const written = await Promise.all(
    keys.map((k) => {
      const flag: FlagRecord = {
        flagKey: flagItemKey(flagKeyFor(k.prefix, deps.pepper), target.scope, target.sessionId),
        orgId: req.orgId,
        scope: target.scope,
        keyId: k.publicId,
        sessionId: target.sessionId,
        state: req.action,
        triggerType: req.triggerType,
        observedValue: req.observedValue,
        thresholdValue: req.thresholdValue,
        mode: req.mode,
        setAt,
        expiresAt,
      };
      return deps.flags.put(flag, nowMs);
    }),
  );
  return {
    ...target,
    action: req.action,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    ttlSeconds,
    keysFlagged: written.filter(Boolean).length,
  };
}

/** The unrevoked keys a flag at `target` is written for. */
async function keysAt(deps: EnforcementDeps, orgId: string, target: FlagTarget): Promise<ApiKeyRecord[]> {
  if (target.scope === 'organization') {
    return (await deps.keys.listByOrg(orgId)).filter((k) => k.revokedAt === null);
  }
  const key = target.keyId === null ? undefined : await deps.keys.get(target.keyId);
  return key !== undefined && key.orgId === orgId && key.revokedAt === null ? [key] : [];
}

/**
 * Clears flags (manual resume, spec 3: action ACTIVE → RESUMED): every flag of the organization without
 * a target, else exactly the flags at `target` (the organization's, one key's, or one session's).
 * Returns how many unexpired flag items were cleared.
 */
export async function clearFlags(
  deps: EnforcementDeps,
  orgId: string,
  nowMs: number,
  target?: FlagTarget,
): Promise<number> {
  const existing = (await deps.flags.listByOrg(orgId, nowMs)).filter(
    (f) => target === undefined || isAt(f, target),
  );
  // Delete by the keys' item keys as well as by the index: the index is eventually consistent, so a flag
  // written a moment ago may not be listed yet.
  const direct: string[] = [];
  if (target === undefined || target.scope === 'organization') {
    for (const k of await deps.keys.listByOrg(orgId)) {
      const flagKey = flagKeyFor(k.prefix, deps.pepper);
      direct.push(orgFlagItemKey(flagKey));
      if (target === undefined) direct.push(flagKey);
    }
  } else {
    const key = target.keyId === null ? undefined : await deps.keys.get(target.keyId);
    if (key !== undefined && key.orgId === orgId) {
      const flagKey = flagKeyFor(key.prefix, deps.pepper);
      direct.push(target.sessionId === null ? flagKey : sessionFlagItemKey(flagKey, target.sessionId));
    }
  }
  const flagKeys = new Set([...existing.map((f) => f.flagKey), ...direct]);
  await Promise.all([...flagKeys].map((fk) => deps.flags.delete(fk)));
  return existing.length;
}

/**
 * Gives a key created while an organization flag lasts its copy of that flag (issue 15.4), so that the
 * edge refuses it as it refuses the organization's other keys. Call it after storing the key. Returns
 * whether a flag was written.
 */
export async function coverKeyWithOrgFlags(
  services: Pick<Services, 'flags' | 'pepper' | 'now'>,
  key: Pick<ApiKeyRecord, 'orgId' | 'publicId' | 'prefix'>,
): Promise<boolean> {
  const now = services.now();
  const orgFlags = (await services.flags.listByOrg(key.orgId, now)).filter((f) => f.scope === 'organization');
  const strongest = strongestFlag(orgFlags, now);
  if (strongest === undefined) return false;
  const flagKey = orgFlagItemKey(flagKeyFor(key.prefix, await services.pepper.get()));
  return services.flags.put({ ...strongest, flagKey, keyId: key.publicId }, now);
}
