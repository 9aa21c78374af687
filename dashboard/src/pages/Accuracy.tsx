/**
 * Accuracy: the ledger against the providers' own usage and cost reports (docs/reconciliation.md).
 * Per provider: ledger vs billed, untracked spend (billed, never seen by Spendguard), overcounted spend
 * (in the ledger, not billed), the measured agreement and its trend per day; per day and model, the
 * rows behind it; and the form that stores each provider's admin credential (never shown again).
 */
import { useState, type FormEvent } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

import { ApiError } from '../api/client';
import { useApiClient } from '../api/context';
import type {
  ProviderReconciliation,
  ReconciledProvider,
  ReconciliationResponse,
} from '../api/reconciliation';
import { Card } from '../components/Card';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import { agreementSeries } from '../lib/accuracy';
import { formatDateTime, formatInt, formatUsd } from '../lib/format';
import { useAsync } from '../lib/useAsync';

/** The providers reconciled with an admin key; Amazon Bedrock has none (its metrics are the account's). */
type AdminKeyProvider = Exclude<ReconciledProvider, 'bedrock'>;
const PROVIDERS: Array<{ id: AdminKeyProvider; label: string; credential: string }> = [
  { id: 'openai', label: 'OpenAI', credential: 'Admin key (sk-admin-…), organization Usage and Costs APIs' },
  {
    id: 'anthropic',
    label: 'Anthropic',
    credential: 'Admin API key (sk-ant-admin01-…), usage and cost reports',
  },
  { id: 'openrouter', label: 'OpenRouter', credential: 'Management key, activity (completed days only)' },
];
const LINE_COLORS: Record<ReconciledProvider, string> = {
  openai: '#0f766e',
  anthropic: '#b45309',
  openrouter: '#1d4ed8',
  bedrock: '#7c3aed',
};
const labelOf = (id: string) =>
  id === 'bedrock' ? 'Amazon Bedrock' : (PROVIDERS.find((p) => p.id === id)?.label ?? id);
const pct = (v: number | null) => (v === null ? '—' : `${v.toFixed(2)} %`);

function AgreementChart({ providers }: { providers: ProviderReconciliation[] }) {
  const data = agreementSeries(providers);
  if (data.length === 0) return <Empty>No spend in the window on either side yet.</Empty>;
  return (
    <div
      className="chart"
      data-testid="agreement-chart"
      role="img"
      aria-label="Agreement per day and provider"
      style={{ height: 240 }}
    >
      <ResponsiveContainer
        width="100%"
        height={240}
        minWidth={0}
        initialDimension={{ width: 600, height: 240 }}
      >
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 4, left: 4 }}>
          <CartesianGrid stroke="#e5e7eb" vertical={false} />
          <XAxis dataKey="date" tick={{ fill: '#4b5563', fontSize: 12 }} />
          <YAxis domain={[0, 100]} unit=" %" tick={{ fill: '#4b5563', fontSize: 12 }} width={56} />
          <Tooltip formatter={(v) => `${Number(v).toFixed(2)} %`} />
          <Legend />
          {providers.map((p) => (
            <Line
              key={p.provider}
              dataKey={p.provider}
              name={labelOf(p.provider)}
              stroke={LINE_COLORS[p.provider]}
              dot
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

function Summary({ data }: { data: ReconciliationResponse }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid="accuracy-summary">
        <caption className="sr-only">Ledger against the providers’ reports over the window</caption>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Ledger</th>
            <th scope="col">Billed</th>
            <th scope="col">Untracked</th>
            <th scope="col">Overcounted</th>
            <th scope="col">Agreement</th>
            <th scope="col">Token agreement</th>
          </tr>
        </thead>
        <tbody>
          {data.providers.map((p) => (
            <tr key={p.provider} data-testid="accuracy-provider">
              <th scope="row">
                {labelOf(p.provider)}
                {p.source === 'token_metrics_at_rates' && (
                  <span className="muted"> (CloudWatch token metrics at rates, not an invoice)</span>
                )}
              </th>
              <td>{formatUsd(p.ledgerUsd)}</td>
              <td>{formatUsd(p.providerUsd)}</td>
              <td className={p.untrackedUsd > 0 ? 'text-warn' : undefined}>{formatUsd(p.untrackedUsd)}</td>
              <td className={p.overcountedUsd > 0 ? 'text-warn' : undefined}>
                {formatUsd(p.overcountedUsd)}
              </td>
              <td>{pct(p.agreementPct)}</td>
              <td>{pct(p.tokenAgreementPct)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DayRows({ provider }: { provider: ProviderReconciliation }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid={`accuracy-days-${provider.provider}`}>
        <caption>{labelOf(provider.provider)}: per day and model</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Model</th>
            <th scope="col">Ledger</th>
            <th scope="col">Billed</th>
            <th scope="col">Untracked</th>
            <th scope="col">Overcounted</th>
            <th scope="col">Tokens (ledger / provider)</th>
          </tr>
        </thead>
        <tbody>
          {[...provider.days].reverse().map((d) => (
            <tr key={`${d.date}/${d.model ?? ''}`}>
              <td>{d.date}</td>
              <td>{d.model ?? <em>not per model (fees)</em>}</td>
              <td>{formatUsd(d.ledgerUsd)}</td>
              <td>{formatUsd(d.providerUsd)}</td>
              <td>{formatUsd(d.untrackedUsd)}</td>
              <td>{formatUsd(d.overcountedUsd)}</td>
              <td>
                {formatInt(d.ledgerTokens)} / {formatInt(d.providerTokens)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Credentials() {
  const client = useApiClient();
  const creds = useAsync((signal) => client.getReconciliationCredentials(signal), [client]);
  const [provider, setProvider] = useState<AdminKeyProvider>('openai');
  const [adminKey, setAdminKey] = useState('');
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (adminKey.trim() === '') {
      setMessage({ ok: false, text: 'Enter the admin key.' });
      return;
    }
    setSaving(true);
    setMessage(null);
    try {
      await client.putReconciliationCredential(provider, adminKey.trim());
      setAdminKey('');
      setMessage({ ok: true, text: `${labelOf(provider)} admin key stored. It will not be shown again.` });
      creds.reload();
    } catch (err) {
      const problems = err instanceof ApiError ? err.problems.map((p) => `${p.path}: ${p.message}`) : [];
      setMessage({
        ok: false,
        text: [err instanceof Error ? err.message : String(err), ...problems].join(' — '),
      });
    } finally {
      setSaving(false);
    }
  }

  /** DELETE /v1/reconciliation/credentials/{provider} (admins): the stored key is removed. */
  async function remove(id: ReconciledProvider) {
    setSaving(true);
    setMessage(null);
    try {
      await client.deleteReconciliationCredential(id);
      setMessage({
        ok: true,
        text:
          id === 'bedrock' ? 'Amazon Bedrock reconciliation removed.' : `${labelOf(id)} admin key removed.`,
      });
      creds.reload();
    } catch (err) {
      setMessage({ ok: false, text: err instanceof Error ? err.message : String(err) });
    } finally {
      setSaving(false);
    }
  }

  const configured = new Map((creds.data?.providers ?? []).map((p) => [p.provider, p.configured]));
  const bedrock = creds.data?.providers.find((p) => p.provider === 'bedrock');
  return (
    <Card title="Provider admin keys">
      <ul className="credential-list" data-testid="credential-status">
        {PROVIDERS.map((p) => (
          <li key={p.id}>
            <strong>{p.label}</strong>: {configured.get(p.id) ? 'configured' : 'not configured'}
            {configured.get(p.id) && (
              <>
                {' '}
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={saving}
                  aria-label={`Remove the ${p.label} admin key`}
                  onClick={() => void remove(p.id)}
                >
                  Remove
                </button>
              </>
            )}
          </li>
        ))}
        <li key="bedrock">
          <strong>Amazon Bedrock</strong>:{' '}
          {bedrock?.configured ? (
            <>
              this organization reconciles the AWS account’s token metrics in {bedrock.regions?.join(', ')}{' '}
              <button
                type="button"
                className="btn btn-small"
                disabled={saving}
                aria-label="Remove the Amazon Bedrock reconciliation"
                onClick={() => void remove('bedrock')}
              >
                Remove
              </button>
            </>
          ) : (
            <>
              not configured (no key: an admin claims the account with{' '}
              <code>PUT /v1/reconciliation/credentials {'{"provider":"bedrock"}'}</code>)
            </>
          )}
        </li>
      </ul>
      {creds.status === 'error' && <ErrorNotice error={creds.error} onRetry={creds.reload} />}
      <form onSubmit={(e) => void save(e)} noValidate aria-label="Store a provider admin key">
        <div className="field">
          <label htmlFor="credential-provider">Provider</label>
          <select
            id="credential-provider"
            value={provider}
            onChange={(e) => setProvider(e.target.value as AdminKeyProvider)}
          >
            {PROVIDERS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
          <p className="field-hint">{PROVIDERS.find((p) => p.id === provider)?.credential}</p>
        </div>
        <div className="field">
          <label htmlFor="credential-key">Admin key</label>
          <input
            id="credential-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={adminKey}
            onChange={(e) => setAdminKey(e.target.value)}
          />
          <p className="field-hint">Stored in Secrets Manager; never shown again, never logged.</p>
        </div>
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving ? 'Saving…' : 'Store key'}
        </button>
        {message && (
          <p className={message.ok ? 'status' : 'field-error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
      </form>
    </Card>
  );
}

export function Accuracy() {
  const client = useApiClient();
  const result = useAsync((signal) => client.getReconciliation(signal), [client]);
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<Error | null>(null);

  async function runNow() {
    setRunning(true);
    setRunError(null);
    try {
      await client.runReconciliation();
      result.reload();
    } catch (err) {
      setRunError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setRunning(false);
    }
  }

  const data = result.data;
  return (
    <div className="page accuracy">
      <Card
        title="Ledger vs provider reports"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void runNow()} disabled={running}>
            {running ? 'Reconciling…' : 'Reconcile now'}
          </button>
        }
      >
        {runError && <ErrorNotice error={runError} title="Reconciliation failed" />}
        {result.status === 'error' ? (
          <ErrorNotice error={result.error} onRetry={result.reload} />
        ) : !data ? (
          <Loading label="Loading the reconciliation…" />
        ) : data.computedAt === null ? (
          <Empty>Not reconciled yet. Store a provider admin key below, then reconcile.</Empty>
        ) : (
          <>
            <p className="muted">
              {data.window ? `${data.window.from} to ${data.window.to} (UTC), ` : ''}computed{' '}
              {formatDateTime(data.computedAt)}
            </p>
            {data.errors.map((e) => (
              <p key={e.provider} className="status status-error" role="alert">
                {labelOf(e.provider)}: {e.message}
              </p>
            ))}
            {data.providers.length === 0 ? (
              <Empty>No provider reports were read.</Empty>
            ) : (
              <Summary data={data} />
            )}
          </>
        )}
      </Card>
      {data && data.providers.length > 0 && (
        <>
          <Card title="Agreement over time">
            <AgreementChart providers={data.providers} />
          </Card>
          <Card title="Per day and model">
            {data.providers.map((p) => (
              <DayRows key={p.provider} provider={p} />
            ))}
          </Card>
        </>
      )}
      <Credentials />
    </div>
  );
}
