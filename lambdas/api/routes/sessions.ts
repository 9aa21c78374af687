import { nanosToUsd } from '../../../core/pricing';
import { formatZodIssues } from '../../../core/schemas';
import {
  MAX_LEDGER_PAGE,
  MAX_TRIPS,
  sessionsQuerySchema,
  type SessionFlagView,
} from '../../../core/schemas/api';
import { summarizeSessions, type SessionFlag } from '../../../core/sessions/session-summary';
import { httpErrors, json } from '../../shared/http';
import type { LedgerEntry, LedgerStore } from '../../shared/stores/ledger-store';
import type { FlagRecord } from '../../shared/stores/flag-store';
import type { Route } from './types';

/** Most ledger entries read for one answer (10 pages): the newest calls of the window. */
export const MAX_SESSION_SCAN = 10 * MAX_LEDGER_PAGE;

const HOUR_MS = 3_600_000;

/** A flag with the scope fields of CONTRACTS §1 (present once the flag store writes them). */
type ScopedFlag = FlagRecord & SessionFlag;

/**
 * GET /v1/sessions?hours=24 (people): the organization's agent sessions of the window, newest first,
 * each with calls, cost, prompt growth, repeated fingerprints, its trip and its session flag.
 */
export const listSessions: Route = {
  auth: 'person',
  handle: async ({ event, principal, services }) => {
    const parsed = sessionsQuerySchema.safeParse(event.queryStringParameters ?? {});
    if (!parsed.success) throw httpErrors.badRequest('invalid sessions query', formatZodIssues(parsed.error));
    const { hours } = parsed.data;
    const now = services.now();
    const from = new Date(now - hours * HOUR_MS).toISOString();
    const [scan, trips, flags] = await Promise.all([
      readWindow(services.ledger, principal.orgId, from),
      services.trips.recent(principal.orgId, MAX_TRIPS),
      services.flags.listByOrg(principal.orgId, now) as Promise<ScopedFlag[]>,
    ]);
    const sessions = summarizeSessions(scan.entries, trips, flags).map(({ costNanos, flag, ...s }) => ({
      ...s,
      costUsd: nanosToUsd(costNanos),
      flag: flag === null ? null : sessionFlagView(flag),
    }));
    return json(200, { sessions, hours, truncated: scan.truncated });
  },
};

/** The window's entries, newest first, up to {@link MAX_SESSION_SCAN}. */
async function readWindow(
  ledger: LedgerStore,
  orgId: string,
  from: string,
): Promise<{ entries: LedgerEntry[]; truncated: boolean }> {
  const entries: LedgerEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await ledger.query(orgId, { from }, MAX_LEDGER_PAGE, cursor);
    entries.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor !== null && entries.length < MAX_SESSION_SCAN);
  return { entries, truncated: cursor !== null };
}

function sessionFlagView(f: ScopedFlag): SessionFlagView {
  return {
    scope: f.scope === 'key' || f.scope === 'organization' ? f.scope : 'session',
    keyId: f.keyId ?? null,
    sessionId: f.sessionId ?? null,
    state: f.state,
    triggerType: f.triggerType,
    observedValue: f.observedValue,
    thresholdValue: f.thresholdValue,
    mode: f.mode as SessionFlagView['mode'],
    setAt: f.setAt,
    expiresAt: new Date(f.expiresAt * 1000).toISOString(),
  };
}
