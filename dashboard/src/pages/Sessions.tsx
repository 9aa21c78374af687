import { useState } from 'react';

import { useApiClient } from '../api/context';
import type { AgentSession } from '../api/types';
import { Card } from '../components/Card';
import { PromptGrowthChart } from '../components/charts';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import {
  formatDateTime,
  formatInt,
  formatTriggerValue,
  formatUsd,
  modeLabel,
  triggerLabel,
} from '../lib/format';
import { sessionResumeRequest } from '../lib/resume';
import { useAsync } from '../lib/useAsync';

const WINDOWS = [
  { hours: 1, label: 'Last hour' },
  { hours: 6, label: 'Last 6 hours' },
  { hours: 24, label: 'Last 24 hours' },
  { hours: 72, label: 'Last 3 days' },
  { hours: 168, label: 'Last 7 days' },
] as const;

/** The first 12 hex digits of a fingerprint (`sha256:<hex>`): enough to tell repeats apart. */
function shortFingerprint(fp: string): string {
  return `${fp.replace(/^sha256:/, '').slice(0, 12)}…`;
}

/** Stopped when its flag is active, or its latest trip suspended or throttled it. */
function stopState(s: AgentSession): string | null {
  if (s.flag) return s.flag.state;
  if (s.trip && s.trip.action !== 'WARN') return s.trip.action;
  return null;
}

function SessionCard({ session, onResumed }: { session: AgentSession; onResumed: () => void }) {
  const api = useApiClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [resumed, setResumed] = useState(false);
  const stopped = stopState(session);

  async function resume() {
    setBusy(true);
    setError(null);
    try {
      await api.enforce(sessionResumeRequest(session));
      setResumed(true);
      onResumed();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section
      className="card session"
      data-testid="session-card"
      aria-labelledby={`session-${session.keyId}-${session.sessionId}`}
    >
      <header className="card-header">
        <h2 id={`session-${session.keyId}-${session.sessionId}`}>
          {session.sessionId}{' '}
          {stopped ? (
            <span className="badge badge-danger" data-testid="session-state">
              {stopped}
            </span>
          ) : (
            <span className="badge badge-ok" data-testid="session-state">
              Running
            </span>
          )}
        </h2>
        <p className="muted small">
          Key <code>{session.keyId}</code>
        </p>
      </header>
      <dl className="flag-facts">
        <div>
          <dt>Calls</dt>
          <dd data-testid="session-calls">{formatInt(session.calls)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="session-cost">{formatUsd(session.costUsd)}</dd>
        </div>
        <div>
          <dt>First call</dt>
          <dd>{formatDateTime(session.firstAt)}</dd>
        </div>
        <div>
          <dt>Latest call</dt>
          <dd>{formatDateTime(session.lastAt)}</dd>
        </div>
      </dl>

      <h3 className="small">Prompt tokens per call</h3>
      {session.promptTokens.length >= 2 ? (
        <PromptGrowthChart points={session.promptTokens} sessionId={session.sessionId} />
      ) : (
        <p className="muted small">One call so far: no growth to draw.</p>
      )}

      <h3 className="small">Repeated requests</h3>
      {session.repeatedFingerprints.length === 0 ? (
        <p className="muted small">No request was sent twice.</p>
      ) : (
        <ul className="small" data-testid="session-repeats" aria-label="Repeated request fingerprints">
          {session.repeatedFingerprints.map((f) => (
            <li key={f.fingerprint}>
              <code title={f.fingerprint}>{shortFingerprint(f.fingerprint)}</code> × {formatInt(f.count)}
            </li>
          ))}
        </ul>
      )}

      <h3 className="small">What stopped it</h3>
      {session.trip ? (
        <p className="small" data-testid="session-trip">
          {triggerLabel(session.trip.triggerType)} at {formatDateTime(session.trip.at)}: observed{' '}
          {formatTriggerValue(session.trip.triggerType, session.trip.observedValue)}, threshold{' '}
          {formatTriggerValue(session.trip.triggerType, session.trip.thresholdValue)} (
          {modeLabel(session.trip.mode)}). <span className="muted">{session.trip.message}</span>
        </p>
      ) : (
        <p className="muted small">No guardrail tripped for this session.</p>
      )}

      {stopped && !resumed && (
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => void resume()}
          disabled={busy}
          data-testid="session-resume"
          aria-label={`Resume session ${session.sessionId}: clear its flag only`}
        >
          {busy ? 'Resuming…' : 'Resume this session'}
        </button>
      )}
      {resumed && (
        <p role="status" className="small">
          Session resumed: its next call goes through.
        </p>
      )}
      {error && <ErrorNotice title="Resume failed" error={error} />}
    </section>
  );
}

/**
 * Agents and their sessions (`GET /v1/sessions`): per session the calls, cost, prompt growth, repeated
 * requests, the trip that stopped it, and Resume for that session alone.
 */
export function Sessions() {
  const api = useApiClient();
  const [hours, setHours] = useState(24);
  const sessions = useAsync((signal) => api.getSessions(hours, signal), [api, hours]);

  return (
    <div className="page">
      <h1>Sessions</h1>
      <p className="muted">
        An agent session is what the SDK names with <code>sessionId</code> or the proxy with the{' '}
        <code>x-spendguard-session</code> header. A loop stops its session only; the other sessions of the key
        keep working.
      </p>
      <div className="field inline-form">
        <label htmlFor="session-window">Window</label>
        <select id="session-window" value={hours} onChange={(e) => setHours(Number(e.target.value))}>
          {WINDOWS.map((w) => (
            <option key={w.hours} value={w.hours}>
              {w.label}
            </option>
          ))}
        </select>
      </div>
      {sessions.status === 'error' ? (
        <ErrorNotice error={sessions.error} onRetry={sessions.reload} />
      ) : sessions.status === 'loading' && !sessions.data ? (
        <Loading label="Loading sessions…" />
      ) : !sessions.data || sessions.data.sessions.length === 0 ? (
        <Card title="No sessions">
          <Empty>No call named a session in this window.</Empty>
        </Card>
      ) : (
        <>
          {sessions.data.truncated && (
            <p className="muted small" role="note">
              Many calls in this window: the newest are summarized.
            </p>
          )}
          <div className="session-grid">
            {sessions.data.sessions.map((s) => (
              <SessionCard key={`${s.keyId}/${s.sessionId}`} session={s} onResumed={sessions.reload} />
            ))}
          </div>
        </>
      )}
    </div>
  );
}
