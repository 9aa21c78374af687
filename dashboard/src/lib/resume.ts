import type { AgentSession, ApiKey, EnforceRequest, FlagScope, KillFlag } from '../api/types';

const SCOPES: readonly FlagScope[] = ['organization', 'key', 'session'];

/** The flag's scope; a value outside the contract reads as the widest, the organization. */
export function flagScopeOf(flag: Pick<KillFlag, 'scope'>): FlagScope {
  return SCOPES.includes(flag.scope as FlagScope) ? (flag.scope as FlagScope) : 'organization';
}

/** The prefix `abn_<publicId>` of a public key id (what the enforcement endpoint accepts). */
export function prefixOfKeyId(keyId: string): string {
  return `abn_${keyId}`;
}

/**
 * The enforcement request that resumes exactly this flag (spec 4.2, CONTRACTS §1): for a key or session
 * flag `{ apiKey: its key's prefix, action: 'ACTIVE', scope, keyId[, sessionId] }`; for an organization
 * flag `{ apiKey, action: 'ACTIVE', scope: 'organization' }`, where any key of the organization (an
 * active one first) proves ownership: the flag names only how many keys carry it, not which.
 *
 * @throws Error when an organization flag must be resumed and the organization has no key at all.
 */
export function resumeRequest(flag: KillFlag, keys: readonly ApiKey[]): EnforceRequest {
  const scope = flagScopeOf(flag);
  if ((scope === 'key' || scope === 'session') && flag.keyId) {
    return {
      apiKey: prefixOfKeyId(flag.keyId),
      action: 'ACTIVE',
      scope,
      keyId: flag.keyId,
      ...(scope === 'session' && flag.sessionId ? { sessionId: flag.sessionId } : {}),
    };
  }
  const key = keys.find((k) => k.revokedAt === null) ?? keys[0];
  if (!key) throw new Error('This organization has no API key to resume with');
  return { apiKey: key.prefix, action: 'ACTIVE', scope: 'organization' };
}

/** Says in words what a flag stops, e.g. "Session agent-7 of key k3v9x0q2m7za". */
export function scopeLabel(flag: KillFlag): string {
  const scope = flagScopeOf(flag);
  if (scope === 'session') {
    return `Session ${flag.sessionId ?? '(unnamed)'}${flag.keyId ? ` of key ${flag.keyId}` : ''}`;
  }
  if (scope === 'key') return `Key ${flag.keyId ?? '(unknown)'}`;
  return 'Whole organization';
}

/** Resume for one agent session: clears that session's flag only (CONTRACTS §4). */
export function sessionResumeRequest(session: Pick<AgentSession, 'keyId' | 'sessionId'>): EnforceRequest {
  return {
    apiKey: prefixOfKeyId(session.keyId),
    action: 'ACTIVE',
    scope: 'session',
    keyId: session.keyId,
    sessionId: session.sessionId,
  };
}
