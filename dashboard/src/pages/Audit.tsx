import { useState } from 'react';

import type { AuditActor, AuditEntry } from '../api/audit';
import { useApiClient } from '../api/context';
import { Card } from '../components/Card';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import { formatDateTime } from '../lib/format';
import { useAsync } from '../lib/useAsync';

/** The actions GET /v1/audit records, in words (core/schemas/api/audit.ts lists them). */
export const AUDIT_ACTION_LABELS: Readonly<Record<string, string>> = {
  'budget.updated': 'Budget or policy changed',
  'pricing_rates.updated': 'Pricing rates changed',
  'credentials.stored': 'Admin credential stored',
  'credentials.deleted': 'Admin credential deleted',
  'key.created': 'API key created',
  'key.revoked': 'API key revoked',
  'flag.set': 'Kill flag set',
  'flag.cleared': 'Kill flag cleared',
  'settled_spend.corrected': 'Settled spend corrected',
  'audit_settings.updated': 'Audit retention changed',
  'owner.claimed': 'Organization owner recorded',
  'role.denied': 'Refused: role too low',
};

const PAGE = 50;

function actorText(actor: AuditActor): string {
  return actor.kind === 'key' ? `key ${actor.keyId}` : `${actor.email ?? actor.sub} (${actor.role})`;
}

/** A value before or after, compact: `—` for none. Never a secret: the API records none. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return JSON.stringify(value);
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const denied = entry.action === 'role.denied';
  return (
    <tr data-testid="audit-row" className={denied ? 'row-denied' : undefined}>
      <td className="nowrap">{formatDateTime(entry.at)}</td>
      <td data-testid="audit-actor">{actorText(entry.actor)}</td>
      <td data-testid="audit-action">
        {denied ? (
          <span className="badge badge-danger">{AUDIT_ACTION_LABELS[entry.action]}</span>
        ) : (
          (AUDIT_ACTION_LABELS[entry.action] ?? entry.action)
        )}
      </td>
      <td>{entry.target === null ? '—' : <code>{entry.target}</code>}</td>
      <td className="audit-value" data-testid="audit-before">
        <code>{valueText(entry.before)}</code>
      </td>
      <td className="audit-value" data-testid="audit-after">
        <code>{valueText(entry.after)}</code>
      </td>
    </tr>
  );
}

/**
 * The audit log (GET /v1/audit): every change to the organization with who made it, when, and the value
 * before and after; refused attempts too. Newest first; older pages on demand. Admins and members only:
 * a viewer sees the API's refusal.
 */
export function Audit() {
  const api = useApiClient();
  const [action, setAction] = useState('');
  const [older, setOlder] = useState<{ entries: AuditEntry[]; cursor: string | null } | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<Error | null>(null);
  const first = useAsync(
    async (signal) => {
      setOlder(null);
      return api.getAudit({ limit: PAGE, ...(action ? { action } : {}) }, signal);
    },
    [api, action],
  );

  const entries = [...(first.data?.entries ?? []), ...(older?.entries ?? [])];
  const cursor = older ? older.cursor : (first.data?.nextCursor ?? null);

  async function loadOlder() {
    if (cursor === null) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await api.getAudit({ limit: PAGE, cursor, ...(action ? { action } : {}) });
      setOlder((o) => ({ entries: [...(o?.entries ?? []), ...page.entries], cursor: page.nextCursor }));
    } catch (err) {
      setMoreError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setLoadingMore(false);
    }
  }

  return (
    <div className="page">
      <h1>Audit</h1>
      <p className="muted">
        Every change to budgets, policy, rates, credentials, keys and kill flags, with who made it and the
        value before and after; refused attempts too.
      </p>
      <Card
        title="Audit log"
        testId="audit-card"
        actions={
          <div className="field">
            <label htmlFor="f-audit-action">Show</label>
            <select id="f-audit-action" value={action} onChange={(e) => setAction(e.target.value)}>
              <option value="">Every change</option>
              {Object.entries(AUDIT_ACTION_LABELS).map(([id, label]) => (
                <option key={id} value={id}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        }
      >
        {first.status === 'error' && <ErrorNotice error={first.error} onRetry={first.reload} />}
        {first.status === 'loading' && !first.data && <Loading />}
        {first.data && entries.length === 0 && <Empty>No changes recorded yet.</Empty>}
        {entries.length > 0 && (
          <div className="table-wrap">
            <table className="table" data-testid="audit-table">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">On</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <AuditRow key={e.id} entry={e} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {moreError && <ErrorNotice error={moreError} onRetry={() => void loadOlder()} />}
        {cursor !== null && entries.length > 0 && (
          <button type="button" className="btn" disabled={loadingMore} onClick={() => void loadOlder()}>
            {loadingMore ? 'Loading…' : 'Older changes'}
          </button>
        )}
        {first.data && (
          <p className="muted small">
            Entries are kept {first.data.retentionDays} days; they cannot be changed or deleted.
          </p>
        )}
      </Card>
    </div>
  );
}
