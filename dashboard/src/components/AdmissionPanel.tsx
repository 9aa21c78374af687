import type { Admission, AdmissionPeriod } from '../api/types';
import { formatInt, formatUsd } from '../lib/format';
import { Card } from './Card';

/** Settled + reserved, in exact nano steps so two decimals of float error never show. */
export function admittedUsd(p: AdmissionPeriod): number {
  return Math.round(p.settledUsd * 1e9 + p.reservedUsd * 1e9) / 1e9;
}

function PeriodFacts({ label, period }: { label: string; period: AdmissionPeriod }) {
  const admitted = admittedUsd(period);
  const share = period.capUsd !== null && period.capUsd > 0 ? Math.min(1, admitted / period.capUsd) : null;
  return (
    <section
      className="admission-period"
      aria-label={`${label} admission`}
      data-testid={`admission-${label.toLowerCase()}`}
    >
      <h3>{label}</h3>
      <dl className="flag-facts">
        <div>
          <dt>Hard cap</dt>
          <dd>{period.capUsd === null ? 'None' : formatUsd(period.capUsd)}</dd>
        </div>
        <div>
          <dt>Admitted</dt>
          <dd data-testid="admitted">{formatUsd(admitted)}</dd>
        </div>
        <div>
          <dt>Settled</dt>
          <dd data-testid="settled">{formatUsd(period.settledUsd)}</dd>
        </div>
        <div>
          <dt>Reserved (in flight)</dt>
          <dd data-testid="reserved">
            {formatUsd(period.reservedUsd)} · {formatInt(period.outstandingReservations)}{' '}
            {period.outstandingReservations === 1 ? 'reservation' : 'reservations'}
          </dd>
        </div>
        <div>
          <dt>Leased to holders</dt>
          <dd data-testid="leased">
            {formatUsd(period.leasedUsd)} · {formatInt(period.holders)}{' '}
            {period.holders === 1 ? 'holder' : 'holders'}
          </dd>
        </div>
      </dl>
      {share !== null && (
        <meter
          className="admission-meter"
          min={0}
          max={1}
          value={share}
          aria-label={`${label}: ${formatUsd(admitted)} admitted of ${formatUsd(period.capUsd)} cap`}
        />
      )}
    </section>
  );
}

/**
 * Admission control (`GET /v1/budget` `admission`): what the relay and the SDK leases have admitted
 * against the hard caps — settled spend plus reservations still in flight — beside the settled spend
 * alone. Renders nothing when the API reports no admission.
 */
export function AdmissionPanel({ admission }: { admission: Admission | null }) {
  if (admission === null) return null;
  return (
    <Card title="Admission">
      <p className="muted small">
        Calls are admitted before the provider is contacted: each one reserves its worst-case cost against the
        hard cap and settles at its real cost when it ends. Admitted = settled + reserved; a call that does
        not fit is refused with 429.
      </p>
      <div className="admission-periods">
        <PeriodFacts label="Today" period={admission.day} />
        <PeriodFacts label="Month" period={admission.month} />
      </div>
    </Card>
  );
}
