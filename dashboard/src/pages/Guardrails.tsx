import { useMemo, useState, type FormEvent } from 'react';

import { ApiError } from '../api/client';
import { useApiClient } from '../api/context';
import type { BudgetResponse, Problem } from '../api/types';
import { ActiveFlags } from '../components/ActiveFlags';
import { Card } from '../components/Card';
import { SaveFooter } from '../components/SaveFooter';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import { formatDateTime, formatTriggerValue, modeLabel, triggerLabel } from '../lib/format';
import {
  draftOf,
  fieldKind,
  fieldLabel,
  LAYER_META,
  layerTitle,
  MODES,
  policyProblems,
  policyView,
  sectionsOf,
  type Draft,
} from '../lib/policy';
import { useAsync } from '../lib/useAsync';

function PolicyEditor({ data, onSaved }: { data: BudgetResponse; onSaved: (next: BudgetResponse) => void }) {
  const api = useApiClient();
  const view = useMemo(() => policyView(data.policy), [data.policy]);
  const [draft, setDraft] = useState<Draft>(() => draftOf(view.layers));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<Problem[]>([]);
  const [saveError, setSaveError] = useState<Error | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  // A new policy from the API (after a save) replaces the draft. Done while rendering, not in an effect:
  // an effect would run after the form is already usable and could wipe what the user just typed.
  const [draftSource, setDraftSource] = useState(view);
  if (draftSource !== view) {
    setDraftSource(view);
    setDraft(draftOf(view.layers));
  }

  if (view.layers.length === 0) return <Empty>The API returned no guardrail layers.</Empty>;

  const update = (layer: string, key: string, value: string | boolean) => {
    setSaved(false);
    setDraft((d) => ({ ...d, [layer]: { ...d[layer], [key]: value } }));
  };

  async function save(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    setSaveError(null);
    setGeneral([]);
    const { sections, errors: fieldErrors } = sectionsOf(view.layers, draft);
    setErrors(fieldErrors);
    if (Object.keys(fieldErrors).length > 0) return;
    setSaving(true);
    try {
      const next = await api.putBudget({ policy: view.rebuild(sections) });
      setSaved(true);
      onSaved(next);
    } catch (err) {
      const problems =
        err instanceof ApiError ? policyProblems(err.problems, draft) : { byField: {}, general: [] };
      setErrors(problems.byField);
      setGeneral(problems.general);
      setSaveError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={save} noValidate aria-label="Guardrail policy">
      <div className="layers">
        {view.layers.map(([id, section]) => {
          const meta = view.meta[id];
          const fields = draft[id] ?? {};
          const enabled = fields.enabled;
          return (
            <fieldset key={id} className={`card layer ${enabled === false ? 'layer-off' : ''}`}>
              <legend>{layerTitle(id, view.meta)}</legend>
              {meta?.description && <p className="muted small">{meta.description}</p>}
              {id === 'financialLimits' && (
                <p className="small">
                  The caps themselves are set on the <a href="#/budgets">Budgets</a> page.
                </p>
              )}
              <div className="layer-fields">
                {Object.entries(fields).map(([key, value]) => {
                  const kind = fieldKind(key, section[key]);
                  const inputId = `policy-${id}-${key}`;
                  const error = errors[`${id}.${key}`];
                  const errorId = `${inputId}-error`;
                  if (kind === 'boolean') {
                    return (
                      <div className="field field-check" key={key}>
                        <input
                          id={inputId}
                          type="checkbox"
                          checked={value === true}
                          onChange={(e) => update(id, key, e.target.checked)}
                        />
                        <label htmlFor={inputId}>{fieldLabel(key)}</label>
                      </div>
                    );
                  }
                  return (
                    <div className="field" key={key}>
                      <label htmlFor={inputId}>{fieldLabel(key)}</label>
                      {kind === 'mode' ? (
                        <select
                          id={inputId}
                          value={String(value)}
                          onChange={(e) => update(id, key, e.target.value)}
                        >
                          {MODES.map((m) => (
                            <option key={m} value={m}>
                              {modeLabel(m)}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <input
                          id={inputId}
                          type={kind === 'text' ? 'text' : 'number'}
                          inputMode={kind === 'text' ? undefined : 'decimal'}
                          step="any"
                          min={kind === 'text' ? undefined : 0}
                          value={String(value)}
                          placeholder={section[key] === null ? 'none' : undefined}
                          aria-invalid={error ? true : undefined}
                          aria-describedby={error ? errorId : undefined}
                          onChange={(e) => update(id, key, e.target.value)}
                        />
                      )}
                      {error && (
                        <p className="field-error" id={errorId}>
                          {error}
                        </p>
                      )}
                    </div>
                  );
                })}
              </div>
            </fieldset>
          );
        })}
      </div>
      <SaveFooter noun="policy" saving={saving} saved={saved} saveError={saveError} problems={general} />
    </form>
  );
}

export function Guardrails() {
  const api = useApiClient();
  const budget = useAsync((signal) => api.getBudget(signal), [api]);
  const trips = useAsync((signal) => api.getTrips(50, signal), [api]);
  const [latest, setLatest] = useState<BudgetResponse | null>(null);
  const data = latest ?? budget.data;
  const layerNames = data ? policyView(data.policy).meta : LAYER_META;

  return (
    <div className="page">
      <h1>Guardrails</h1>
      <p className="muted">
        Five layers evaluate every call during ingestion. A tripped layer in hard-stop mode suspends the
        organization’s keys at the edge for 2 hours; throttle mode for 30 minutes; alert mode only notifies.
      </p>

      <Card title="Active kill flags">
        <p className="muted small">
          Each flag stops what it names: one agent session, one key, or the whole organization. Resume clears
          that flag only.
        </p>
        <ActiveFlags onResumed={trips.reload} />
      </Card>

      <Card title="Policy">
        {budget.status === 'error' ? (
          <ErrorNotice error={budget.error} onRetry={budget.reload} />
        ) : !data ? (
          <Loading label="Loading policy…" />
        ) : (
          <PolicyEditor data={data} onSaved={setLatest} />
        )}
      </Card>

      <Card
        title="Recent trips"
        actions={
          <button type="button" className="btn btn-small" onClick={trips.reload}>
            Refresh
          </button>
        }
      >
        {trips.status === 'error' ? (
          <ErrorNotice error={trips.error} onRetry={trips.reload} />
        ) : trips.status === 'loading' ? (
          <Loading label="Loading trips…" />
        ) : trips.data.length === 0 ? (
          <Empty>No guardrail has tripped in the last 90 days.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="table trips-table">
              <caption className="sr-only">Recent guardrail trips, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Layer</th>
                  <th scope="col">Trigger</th>
                  <th scope="col" className="num">
                    Observed
                  </th>
                  <th scope="col" className="num">
                    Threshold
                  </th>
                  <th scope="col">Action</th>
                  <th scope="col">Key / session</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {trips.data.map((t) => (
                  <tr key={`${t.at}-${t.layer}-${t.triggerType}`} data-testid="trip-row">
                    <td className="nowrap">{formatDateTime(t.at)}</td>
                    <td>{layerNames[t.layer]?.name ?? t.layer}</td>
                    <td>{triggerLabel(t.triggerType)}</td>
                    <td className="num">{formatTriggerValue(t.triggerType, t.observedValue)}</td>
                    <td className="num">{formatTriggerValue(t.triggerType, t.thresholdValue)}</td>
                    <td>
                      <span className={`badge ${t.action === 'WARN' ? 'badge-warn' : 'badge-danger'}`}>
                        {t.action}
                      </span>
                      <span className="muted small"> {modeLabel(t.mode)}</span>
                    </td>
                    <td className="small">
                      {t.keyId ? <code>{t.keyId}</code> : '—'}
                      {t.sessionId && <div className="muted">{t.sessionId}</div>}
                    </td>
                    <td className="message">{t.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}
