import { useEffect, useState } from 'react';

import type { KillFlag } from '../api/types';
import { formatDateTime, formatDuration, formatTriggerValue, modeLabel, triggerLabel } from '../lib/format';
import { scopeLabel } from '../lib/resume';

/** Time left until `expiresAt`, ticking every second on its own (the page around it does not re-render). */
function Countdown({ expiresAt, onExpired }: { expiresAt: string; onExpired?: () => void }) {
  const expires = Date.parse(expiresAt);
  const [now, setNow] = useState(() => Date.now());
  const left = Number.isNaN(expires) ? null : expires - now;
  const expired = left !== null && left <= 0;
  useEffect(() => {
    if (expired) {
      onExpired?.();
      return;
    }
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [expired, onExpired]);
  return (
    <span className="countdown" data-testid="flag-countdown">
      {left === null ? '—' : expired ? 'expiring…' : formatDuration(left)}
    </span>
  );
}

/**
 * One active kill flag: what it stops (its scope), what tripped, the numbers, a live countdown to
 * auto-recovery, and Resume (which clears that scope only).
 */
export function FlagBanner({
  flag,
  onResume,
  onExpired,
  resuming,
}: {
  flag: KillFlag;
  onResume: () => void;
  /** Called once the flag's time is up (the edge resumes by itself). */
  onExpired?: () => void;
  resuming: boolean;
}) {
  const keys = Array.isArray(flag.keysFlagged) ? flag.keysFlagged.length : flag.keysFlagged;
  const severe = flag.state === 'SUSPENDED';
  return (
    <div
      className={`flag-banner ${severe ? 'flag-suspended' : 'flag-throttled'}`}
      role="alert"
      data-testid="flag-banner"
    >
      <div className="flag-text">
        <p className="flag-title">
          <span className="badge badge-danger">{flag.state}</span> {triggerLabel(flag.triggerType)}
          <code className="flag-trigger">{flag.triggerType}</code>
        </p>
        <dl className="flag-facts">
          <div>
            <dt>Stops</dt>
            <dd data-testid="flag-scope">{scopeLabel(flag)}</dd>
          </div>
          <div>
            <dt>Observed</dt>
            <dd>{formatTriggerValue(flag.triggerType, flag.observedValue)}</dd>
          </div>
          <div>
            <dt>Threshold</dt>
            <dd>{formatTriggerValue(flag.triggerType, flag.thresholdValue)}</dd>
          </div>
          <div>
            <dt>Mode</dt>
            <dd>{modeLabel(flag.mode)}</dd>
          </div>
          <div>
            <dt>Set at</dt>
            <dd>{formatDateTime(flag.setAt)}</dd>
          </div>
          <div>
            <dt>Resumes automatically in</dt>
            <dd>
              <Countdown expiresAt={flag.expiresAt} onExpired={onExpired} />
            </dd>
          </div>
          {typeof keys === 'number' && keys > 0 && (
            <div>
              <dt>Keys blocked</dt>
              <dd>{keys}</dd>
            </div>
          )}
        </dl>
      </div>
      <button
        type="button"
        className="btn btn-primary"
        onClick={onResume}
        disabled={resuming}
        data-testid="resume-button"
        aria-label={`Resume now: clear the ${flag.state.toLowerCase()} flag (${triggerLabel(flag.triggerType)}) of ${scopeLabel(flag).toLowerCase()}`}
      >
        {resuming ? 'Resuming…' : 'Resume now'}
      </button>
    </div>
  );
}
