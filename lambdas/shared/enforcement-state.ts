/**
 * The `enforcement` block of ingest and lease answers (CONTRACTS.md §1): the flags that apply to the
 * calling key right now, so an SDK learns of a server-side trip within one flush interval.
 */
import { API_KEY_PREFIX, flagKeyFor } from '../../core/keys';
import type { Services } from './services';
import type { FlagRecord, FlagScope, FlagState } from './stores/flag-store';

/** One flag that applies to the calling key. */
export interface EnforcementFlag {
  scope: FlagScope;
  state: FlagState;
  /** The session it stops (session scope), else null. */
  sessionId: string | null;
  triggerType: string;
  /** ISO time the flag lapses. */
  expiresAt: string;
  /** Whole seconds until then, at least 1. */
  retryAfterSeconds: number;
}

export interface EnforcementState {
  /** True when an organization- or key-scope SUSPENDED flag applies: every call of the key is refused. */
  blocked: boolean;
  /** Unexpired flags of the organization, of this key, and of this key's sessions; strongest first. */
  flags: EnforcementFlag[];
}

/**
 * The enforcement state of `keyId` (a public id) at `nowMs`, from one query of that key's flag items
 * (its organization copy, its own, its sessions'; bounded by the key, not by the organization's size).
 * A flag store failure answers "nothing applies" (fail open on flags, decision 6): the edge still enforces.
 */
export async function enforcementFor(
  services: Pick<Services, 'flags' | 'pepper'>,
  orgId: string,
  keyId: string,
  nowMs: number,
): Promise<EnforcementState> {
  let stored: FlagRecord[];
  try {
    const flagKey = flagKeyFor(API_KEY_PREFIX + keyId, await services.pepper.get());
    stored = await services.flags.listByKey(orgId, flagKey, nowMs);
  } catch {
    return { blocked: false, flags: [] };
  }
  return enforcementOf(stored, keyId, nowMs);
}

/** The block from the organization's unexpired flags (pure; see {@link enforcementFor}). */
export function enforcementOf(stored: readonly FlagRecord[], keyId: string, nowMs: number): EnforcementState {
  const seen = new Set<string>();
  const flags: EnforcementFlag[] = [];
  let blocked = false;
  for (const f of stored) {
    // Organization flags are stored once per key; items from before scopes carry no key id.
    const applies = f.scope === 'organization' ? f.keyId === keyId || f.keyId === null : f.keyId === keyId;
    if (!applies || f.expiresAt * 1000 <= nowMs) continue;
    const identity = `${f.scope}|${f.sessionId ?? ''}|${f.state}|${f.triggerType}|${f.expiresAt}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    if (f.state === 'SUSPENDED' && f.scope !== 'session') blocked = true;
    flags.push({
      scope: f.scope,
      state: f.state,
      sessionId: f.scope === 'session' ? f.sessionId : null,
      triggerType: f.triggerType,
      expiresAt: new Date(f.expiresAt * 1000).toISOString(),
      retryAfterSeconds: Math.max(1, Math.ceil(f.expiresAt - nowMs / 1000)),
    });
  }
  flags.sort((a, b) =>
    a.state !== b.state ? (a.state === 'SUSPENDED' ? -1 : 1) : b.expiresAt.localeCompare(a.expiresAt),
  );
  return { blocked, flags };
}
