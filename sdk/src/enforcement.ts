/**
 * The server's kill flags as the SDK last heard them: the `enforcement` block of every flush answer
 * (`POST /v1/events`) and every lease answer (CONTRACTS §1), or the organization flag of `GET /v1/budget`
 * when nothing else answers.
 *
 * A call reads this state only (a field, one Map lookup): never a request on the call path. Each answer
 * replaces the whole state (the server sends every unexpired flag that applies to the key), so a flag
 * cleared on the server (Resume) is lifted by the next answer. A flag stays in force until its expiry or
 * a newer answer; when the backend cannot be reached for {@link failOpenAfterMs}, the flags are dropped
 * (spec Law 4: fail open) rather than enforced from an answer nobody can refresh.
 *
 * SUSPENDED refuses every call in its scope. THROTTLED slows instead, as the edge does
 * (lambdas/edge-guard/throttle.ts): one call, then one per {@link THROTTLE_INTERVAL_MS} per throttled
 * scope in this process; the excess gets a retryable 429.
 */

/**
 * A THROTTLED scope may call once per this many ms: the edge's default (burst 1, one request per 6 s,
 * the rate layer 4 allows a key), so a throttled agent cannot trip layer 4 again. A test keeps it equal.
 */
export const THROTTLE_INTERVAL_MS = 6_000;

/** Why a call is refused by a server flag. */
export interface FlagRefusal {
  readonly state: 'SUSPENDED' | 'THROTTLED';
  readonly scope: 'organization' | 'key' | 'session';
  readonly triggerType: string | null;
  /** Seconds until the flag expires (at least 1). */
  readonly retryAfterSeconds: number;
}

interface Flag {
  readonly state: FlagRefusal['state'];
  readonly scope: FlagRefusal['scope'];
  readonly triggerType: string | null;
  readonly untilMs: number;
}

/** The session key used for calls without a `sessionId` (the server's fallback: the key itself). */
const NO_SESSION = '';

export class EnforcementState {
  /** Organization- or key-scope SUSPENDED flag: every call refused. */
  #keyFlag: Flag | null = null;
  /** Session-scope SUSPENDED flags by session id. */
  #sessions = new Map<string, Flag>();
  /** THROTTLED flags: organization or key scope, and by session id. */
  #throttledKey: Flag | null = null;
  #throttledSessions = new Map<string, Flag>();
  /** When each throttled scope (`''` key, else `s:<session id>`) may call next (epoch ms). */
  #nextThrottledCall = new Map<string, number>();
  /** Epoch ms of the last answer (0: none yet). */
  lastAnswerAt = 0;
  /** Epoch ms of the first failed refresh since the last answer (0: none). */
  #failingSince = 0;
  /** Flags dropped because the backend stayed unreachable. */
  droppedStale = 0;

  /** The public id of the API key: a session flag naming it covers calls without a session id. */
  readonly #keyPublicId: string | null;

  constructor(keyPublicId: string | null) {
    this.#keyPublicId = keyPublicId;
  }

  /**
   * Applies an `enforcement` block received at `nowMs`. Returns false (and changes nothing) when the
   * value is not one.
   */
  apply(block: unknown, nowMs: number): boolean {
    if (typeof block !== 'object' || block === null) return false;
    const { blocked, flags } = block as { blocked?: unknown; flags?: unknown };
    if (!Array.isArray(flags)) return false;
    let keyFlag: Flag | null = null;
    let throttledKey: Flag | null = null;
    const sessions = new Map<string, Flag>();
    const throttledSessions = new Map<string, Flag>();
    for (const raw of flags) {
      const flag = readFlag(raw, nowMs);
      if (flag === null) continue;
      const suspended = flag.state === 'SUSPENDED';
      if (flag.scope === 'session') {
        const sid = (raw as { sessionId?: unknown }).sessionId;
        const key = typeof sid === 'string' && sid !== this.#keyPublicId ? sid : NO_SESSION;
        const into = suspended ? sessions : throttledSessions;
        into.set(key, later(into.get(key), flag));
      } else if (suspended) keyFlag = later(keyFlag ?? undefined, flag);
      else throttledKey = later(throttledKey ?? undefined, flag);
    }
    // `blocked` without a readable flag still blocks (for the shortest sensible time: until the next answer).
    if (blocked === true && keyFlag === null) {
      keyFlag = { state: 'SUSPENDED', scope: 'key', triggerType: null, untilMs: nowMs + 60_000 };
    }
    this.#keyFlag = keyFlag;
    this.#sessions = sessions;
    this.#throttledKey = throttledKey;
    this.#throttledSessions = throttledSessions;
    if (throttledKey === null && throttledSessions.size === 0) this.#nextThrottledCall.clear();
    this.lastAnswerAt = nowMs;
    this.#failingSince = 0;
    return true;
  }

  /**
   * A refresh failed at `nowMs`. Once the backend has been unreachable for `failOpenAfterMs` since the
   * last answer, the flags are dropped: returns true when that happened now.
   */
  failed(nowMs: number, failOpenAfterMs: number): boolean {
    if (this.#failingSince === 0) this.#failingSince = nowMs;
    if (nowMs - this.#failingSince < failOpenAfterMs) return false;
    if (
      this.#keyFlag === null &&
      this.#sessions.size === 0 &&
      this.#throttledKey === null &&
      this.#throttledSessions.size === 0
    ) {
      return false;
    }
    this.#keyFlag = null;
    this.#sessions = new Map();
    this.#throttledKey = null;
    this.#throttledSessions = new Map();
    this.#nextThrottledCall.clear();
    this.droppedStale++;
    return true;
  }

  /**
   * The flag that refuses a call of `sessionId` at `nowMs`, or null. A call a THROTTLED scope admits uses
   * that scope's allowance. The call path: no allocation when clear.
   */
  refusal(sessionId: string | undefined, nowMs: number): FlagRefusal | null {
    const keyFlag = this.#keyFlag;
    if (keyFlag !== null && keyFlag.untilMs > nowMs) return refusalOf(keyFlag, nowMs);
    const sid = sessionId ?? NO_SESSION;
    if (this.#sessions.size > 0) {
      const flag = this.#sessions.get(sid);
      if (flag !== undefined && flag.untilMs > nowMs) return refusalOf(flag, nowMs);
    }
    if (this.#throttledKey === null && this.#throttledSessions.size === 0) return null;
    return this.#throttle(sid, nowMs);
  }

  /** Every THROTTLED scope the call is in must have its allowance; the call then uses each. */
  #throttle(sid: string, nowMs: number): FlagRefusal | null {
    const scopes: Array<[string, Flag]> = [];
    const key = this.#throttledKey;
    if (key !== null && key.untilMs > nowMs) scopes.push([NO_SESSION, key]);
    const session = this.#throttledSessions.get(sid);
    if (session !== undefined && session.untilMs > nowMs) scopes.push([`s:${sid}`, session]);
    for (const [id, flag] of scopes) {
      const next = this.#nextThrottledCall.get(id) ?? 0;
      if (next > nowMs) {
        return {
          state: 'THROTTLED',
          scope: flag.scope,
          triggerType: flag.triggerType,
          retryAfterSeconds: Math.max(1, Math.ceil((next - nowMs) / 1000)),
        };
      }
    }
    for (const [id] of scopes) this.#nextThrottledCall.set(id, nowMs + THROTTLE_INTERVAL_MS);
    return null;
  }

  /** True when an organization- or key-scope flag is in force. */
  blocked(nowMs: number): boolean {
    return this.#keyFlag !== null && this.#keyFlag.untilMs > nowMs;
  }

  /** Sessions currently refused (`''`: calls without a session id). */
  suspendedSessions(nowMs: number): string[] {
    return [...this.#sessions].filter(([, f]) => f.untilMs > nowMs).map(([sid]) => sid);
  }

  /** What is refused, for a log line: `key`, session ids, or `''`. */
  summary(nowMs: number): string {
    return [...(this.blocked(nowMs) ? ['all calls'] : []), ...this.suspendedSessions(nowMs)].join(', ');
  }
}
function refusalOf(flag: Flag, nowMs: number): FlagRefusal {
  return {
    state: flag.state,
    scope: flag.scope,
    triggerType: flag.triggerType,
    retryAfterSeconds: Math.max(1, Math.ceil((flag.untilMs - nowMs) / 1000)),
  };
}

function later(a: Flag | undefined, b: Flag): Flag {
  return a !== undefined && a.untilMs >= b.untilMs ? a : b;
}

const SCOPES: ReadonlySet<string> = new Set(['organization', 'key', 'session']);

/**
 * A SUSPENDED or THROTTLED flag of the block, or null (another state, already expired); an unknown scope
 * is read as the organization's. Its end is `retryAfterSeconds` from receipt when given (immune to clock
 * skew), else `expiresAt`.
 */
function readFlag(raw: unknown, nowMs: number): Flag | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const f = raw as {
    scope?: unknown;
    state?: unknown;
    triggerType?: unknown;
    expiresAt?: unknown;
    retryAfterSeconds?: unknown;
  };
  if (f.state !== 'SUSPENDED' && f.state !== 'THROTTLED') return null;
  const scope =
    typeof f.scope === 'string' && SCOPES.has(f.scope) ? (f.scope as Flag['scope']) : 'organization';
  let untilMs = NaN;
  if (typeof f.retryAfterSeconds === 'number' && f.retryAfterSeconds > 0) {
    untilMs = nowMs + f.retryAfterSeconds * 1000;
  } else if (typeof f.expiresAt === 'string') untilMs = Date.parse(f.expiresAt);
  if (!(untilMs > nowMs)) return null;
  const triggerType = typeof f.triggerType === 'string' ? f.triggerType.slice(0, 64) : null;
  return { state: f.state, scope, triggerType, untilMs };
}
