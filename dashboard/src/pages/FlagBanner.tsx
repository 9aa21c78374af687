import type { KillFlag } from '../api/types';
import { formatDateTime, formatDuration, formatTriggerValue, modeLabel, triggerLabel } from '../lib/format';

/** One active kill flag: what tripped, the numbers, a live countdown to auto-recovery, and Resume. */
export function FlagBanner({
  flag,
  now,
  onResume,
  resuming,
}: {
  flag: KillFlag;
  now: number;
  onResume: () => void;
  resuming: boolean;
}) {
  const expires = Date.parse(flag.expiresAt);
  const left = Number.isNaN(expires) ? null : expires - now;
  const keys = Array.isArray(flag.keysFlagged) ? flag.keysFlagged.length : flag.keysFlagged;
  const severe = flag.state === 'SUSPENDED';
  return (
    <div className={`flag-banner ${severe ? 'flag-suspended' : 'flag-throttled'}`} role="alert" data-testid="flag-banner">
      <div className="flag-text">
        <p className="flag-title">
          <span className="badge badge-danger">{flag.state}</span> {triggerLabel(flag.triggerType)}
          <code className="flag-trigger">{flag.triggerType}</code>
        </p>
        <dl className="flag-facts">
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
              <span className="countdown" aria-live="off" data-testid="flag-countdown">
                {left === null ? '—' : left > 0 ? formatDuration(left) : 'expiring…'}
              </span>
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
        aria-label={`Resume now: clear the ${flag.state.toLowerCase()} flag (${triggerLabel(flag.triggerType)})`}
      >
        {resuming ? 'Resuming…' : 'Resume now'}
      </button>
    </div>
  );
}
