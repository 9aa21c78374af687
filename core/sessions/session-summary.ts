/**
 * Agent sessions (issue 12.6, `GET /v1/sessions`): the ledger's calls grouped by session, each with
 * its calls, exact cost, prompt-token growth, repeated request fingerprints, the trip that stopped it
 * and the flag that holds it. Pure: entries, trips and flags come in as arguments.
 * @module
 */

/** What a session summary needs of a ledger entry. */
export interface SessionCall {
  ts: string;
  keyId: string;
  sessionId: string | null;
  costNanos: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  fingerprint?: string | null;
}

/** What a session summary needs of a trip record. */
export interface SessionTrip {
  at: string;
  keyId: string | null;
  sessionId: string | null;
}

/** What a session summary needs of a kill flag (the scope fields of CONTRACTS §1). */
export interface SessionFlag {
  scope?: string;
  keyId?: string | null;
  sessionId?: string | null;
}

/** One session, as `GET /v1/sessions` lists it (money still in nanos: dollars at the edge). */
export interface SessionSummary<T extends SessionTrip, F extends SessionFlag> {
  sessionId: string;
  keyId: string;
  calls: number;
  costNanos: number;
  firstAt: string;
  lastAt: string;
  /** Whole prompt (input + cache read + cache writes) of each call, oldest first. */
  promptTokens: Array<{ ts: string; tokens: number }>;
  /** Fingerprints seen more than once, most repeated first. */
  repeatedFingerprints: Array<{ fingerprint: string; count: number }>;
  /** The newest trip attributed to this session (and key), or null. */
  trip: T | null;
  /** The active session-scope flag of this session, or null. */
  flag: F | null;
}

/** Bounds of one summary, so an answer stays small whatever the ledger holds. */
export const SESSION_LIMITS = {
  /** Most sessions listed (the most recently active). */
  sessions: 200,
  /** Most prompt-size points per session (the latest calls). */
  promptPoints: 300,
  /** Most repeated fingerprints per session. */
  fingerprints: 10,
} as const;

/**
 * Groups calls by (session, key), newest session first. Calls without a session are not a session and
 * are left out. Sums are exact integers (nano-USD, tokens).
 *
 * @example
 * summarizeSessions(entries, trips, flags)[0]
 * // { sessionId: 'agent-7', keyId: 'k3v9x0q2m7za', calls: 42, costNanos: 1_260_000, … }
 */
export function summarizeSessions<T extends SessionTrip, F extends SessionFlag>(
  calls: readonly SessionCall[],
  trips: readonly T[],
  flags: readonly F[],
): SessionSummary<T, F>[] {
  const groups = new Map<string, SessionCall[]>();
  for (const c of calls) {
    if (c.sessionId === null || c.sessionId === '') continue;
    const id = groupId(c.sessionId, c.keyId);
    const list = groups.get(id);
    if (list) list.push(c);
    else groups.set(id, [c]);
  }
  const out: SessionSummary<T, F>[] = [];
  for (const list of groups.values()) {
    list.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const sessionId = first.sessionId as string;
    const keyId = first.keyId;
    let costNanos = 0;
    const counts = new Map<string, number>();
    for (const c of list) {
      costNanos += c.costNanos;
      if (c.fingerprint) counts.set(c.fingerprint, (counts.get(c.fingerprint) ?? 0) + 1);
    }
    out.push({
      sessionId,
      keyId,
      calls: list.length,
      costNanos,
      firstAt: first.ts,
      lastAt: last.ts,
      promptTokens: list.slice(-SESSION_LIMITS.promptPoints).map((c) => ({
        ts: c.ts,
        tokens: c.inputTokens + c.cacheReadTokens + c.cacheWrite5mTokens + c.cacheWrite1hTokens,
      })),
      repeatedFingerprints: [...counts]
        .filter(([, n]) => n > 1)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, SESSION_LIMITS.fingerprints)
        .map(([fingerprint, count]) => ({ fingerprint, count })),
      trip: newestTrip(trips, sessionId, keyId),
      flag:
        flags.find(
          (f) => f.scope === 'session' && f.sessionId === sessionId && (f.keyId ?? keyId) === keyId,
        ) ?? null,
    });
  }
  out.sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : 0));
  return out.slice(0, SESSION_LIMITS.sessions);
}

function groupId(sessionId: string, keyId: string): string {
  return `${keyId}\u0000${sessionId}`;
}

function newestTrip<T extends SessionTrip>(trips: readonly T[], sessionId: string, keyId: string): T | null {
  let best: T | null = null;
  for (const t of trips) {
    if (t.sessionId !== sessionId || (t.keyId !== null && t.keyId !== keyId)) continue;
    if (best === null || t.at > best.at) best = t;
  }
  return best;
}
