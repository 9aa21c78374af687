import { useState, type FormEvent } from 'react';

import { useApiClient } from '../api/context';
import type { LedgerEntry, LedgerQuery, LedgerSource } from '../api/types';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import { downloadText, toCsv } from '../lib/csv';
import {
  costSourceLabel,
  estimateMarker,
  formatDateTime,
  formatInt,
  formatUsd,
  sourceLabel,
} from '../lib/format';
import { useAsync } from '../lib/useAsync';

interface Filters {
  from: string;
  to: string;
  provider: string;
  model: string;
  projectId: string;
  featureId: string;
  source: '' | LedgerSource;
  limit: number;
}

const EMPTY_FILTERS: Filters = {
  from: '',
  to: '',
  provider: '',
  model: '',
  projectId: '',
  featureId: '',
  source: '',
  limit: 50,
};

const PAGE_SIZES = [25, 50, 100, 250, 500];

/** `datetime-local` value (viewer's zone) → ISO 8601 UTC; '' stays unset. */
function toIso(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export function queryOf(filters: Filters, cursor: string | null): LedgerQuery {
  const q: LedgerQuery = { limit: filters.limit };
  const from = toIso(filters.from);
  const to = toIso(filters.to);
  if (from) q.from = from;
  if (to) q.to = to;
  if (filters.provider.trim()) q.provider = filters.provider.trim();
  if (filters.model.trim()) q.model = filters.model.trim();
  if (filters.projectId.trim()) q.projectId = filters.projectId.trim();
  if (filters.featureId.trim()) q.featureId = filters.featureId.trim();
  if (filters.source) q.source = filters.source;
  if (cursor) q.cursor = cursor;
  return q;
}

export const CSV_HEADER = [
  'time',
  'source',
  'provider',
  'model',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
  'cost_usd',
  'cost_source',
  'estimated',
  'project_id',
  'feature_id',
  'environment',
  'session_id',
  'status_code',
  'latency_ms',
  'event_id',
] as const;

export function ledgerCsv(entries: readonly LedgerEntry[]): string {
  return toCsv(
    CSV_HEADER,
    entries.map((e) => [
      e.ts,
      e.source,
      e.provider,
      e.model,
      e.inputTokens,
      e.outputTokens,
      e.cacheTokens,
      // Full precision: a spreadsheet sums these.
      Number(e.costUsd.toFixed(9)),
      e.costSource,
      estimateMarker(e) || 'no',
      e.projectId,
      e.featureId,
      e.environment,
      e.sessionId,
      e.statusCode,
      e.latencyMs,
      e.eventId,
    ]),
  );
}

function TextFilter({
  id,
  label,
  value,
  onChange,
  placeholder,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  placeholder?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        placeholder={placeholder}
        autoComplete="off"
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}

export function Ledger() {
  const api = useApiClient();
  const [draft, setDraft] = useState<Filters>(EMPTY_FILTERS);
  const [applied, setApplied] = useState<Filters>(EMPTY_FILTERS);
  // Cursors of the pages visited so far: the last one is the current page (null = first page).
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const page = useAsync((signal) => api.getLedger(queryOf(applied, cursor), signal), [api, applied, cursor]);

  const set =
    <K extends keyof Filters>(key: K) =>
    (value: Filters[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));

  function apply(e: FormEvent) {
    e.preventDefault();
    setApplied(draft);
    setCursors([null]);
  }

  function reset() {
    setDraft(EMPTY_FILTERS);
    setApplied(EMPTY_FILTERS);
    setCursors([null]);
  }

  const entries = page.data?.entries ?? [];
  const nextCursor = page.status === 'ready' ? page.data.nextCursor : null;

  function exportCsv() {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    downloadText(`spendguard-ledger-${stamp}.csv`, ledgerCsv(entries));
  }

  return (
    <div className="page">
      <h1>Ledger</h1>
      <p className="muted">Every recorded call, newest first. Prompts and completions are never stored.</p>

      <form className="card filters" onSubmit={apply} aria-label="Ledger filters">
        <div className="field field-wide">
          <label htmlFor="f-from">From</label>
          <input
            id="f-from"
            type="datetime-local"
            value={draft.from}
            onChange={(e) => set('from')(e.target.value)}
          />
        </div>
        <div className="field field-wide">
          <label htmlFor="f-to">To</label>
          <input
            id="f-to"
            type="datetime-local"
            value={draft.to}
            onChange={(e) => set('to')(e.target.value)}
          />
        </div>
        <TextFilter
          id="f-provider"
          label="Provider"
          value={draft.provider}
          onChange={set('provider')}
          placeholder="openai"
        />
        <TextFilter
          id="f-model"
          label="Model"
          value={draft.model}
          onChange={set('model')}
          placeholder="gpt-4o-mini"
        />
        <TextFilter id="f-project" label="Project" value={draft.projectId} onChange={set('projectId')} />
        <TextFilter id="f-feature" label="Feature" value={draft.featureId} onChange={set('featureId')} />
        <div className="field">
          <label htmlFor="f-source">Source</label>
          <select
            id="f-source"
            value={draft.source}
            onChange={(e) => set('source')(e.target.value as Filters['source'])}
          >
            <option value="">Any</option>
            <option value="sdk">SDK</option>
            <option value="proxy">Proxy</option>
            <option value="ingest">Ingest</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-limit">Rows per page</label>
          <select id="f-limit" value={draft.limit} onChange={(e) => set('limit')(Number(e.target.value))}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div className="filter-buttons">
          <button type="submit" className="btn btn-primary">
            Apply filters
          </button>
          <button type="button" className="btn" onClick={reset}>
            Reset
          </button>
        </div>
      </form>

      <div className="toolbar">
        <p className="muted" aria-live="polite">
          Page {cursors.length}
          {page.status === 'ready' && ` · ${entries.length} ${entries.length === 1 ? 'call' : 'calls'}`}
        </p>
        <div className="toolbar-buttons">
          <button
            type="button"
            className="btn"
            onClick={() => setCursors((c) => c.slice(0, -1))}
            disabled={cursors.length <= 1 || page.status === 'loading'}
          >
            ← Previous
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => nextCursor && setCursors((c) => [...c, nextCursor])}
            disabled={!nextCursor || page.status === 'loading'}
          >
            Next →
          </button>
          <button
            type="button"
            className="btn"
            onClick={exportCsv}
            disabled={entries.length === 0 || page.status !== 'ready'}
          >
            Export CSV
          </button>
        </div>
      </div>

      {page.status === 'error' ? (
        <ErrorNotice error={page.error} onRetry={page.reload} />
      ) : page.status === 'loading' ? (
        <Loading label="Loading ledger…" />
      ) : entries.length === 0 ? (
        <Empty>
          {cursors.length > 1
            ? 'No more calls.'
            : JSON.stringify(applied) === JSON.stringify(EMPTY_FILTERS)
              ? 'No calls recorded yet. Send traffic through the SDK, the proxy or POST /api/ingest.'
              : 'No calls match these filters.'}
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table ledger-table">
            <caption className="sr-only">Ledger entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Source</th>
                <th scope="col">Provider</th>
                <th scope="col">Model</th>
                <th scope="col" className="num">
                  In tokens
                </th>
                <th scope="col" className="num">
                  Out tokens
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col">Cost source</th>
                <th scope="col">Project</th>
                <th scope="col">Feature</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => {
                const marker = estimateMarker(e);
                return (
                  <tr key={`${e.ts}-${e.eventId}`} data-testid="ledger-row">
                    <td className="nowrap">{formatDateTime(e.ts)}</td>
                    <td>{sourceLabel(e.source)}</td>
                    <td>{e.provider}</td>
                    <td className="model">{e.model}</td>
                    <td className="num">{formatInt(e.inputTokens)}</td>
                    <td className="num">{formatInt(e.outputTokens)}</td>
                    <td className="num nowrap">
                      {formatUsd(e.costUsd)}
                      {marker && (
                        <span
                          className="badge badge-est"
                          data-testid="est-marker"
                          title={
                            marker === '~est'
                              ? 'Estimated usage, priced with fallback economics'
                              : 'Estimated usage (the stream ended without a usage frame)'
                          }
                        >
                          {marker}
                        </span>
                      )}
                    </td>
                    <td>{costSourceLabel(e.costSource)}</td>
                    <td>{e.projectId ?? '—'}</td>
                    <td>{e.featureId ?? '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
