import { useState, type FormEvent } from 'react';

import { ApiError } from '../api/client';
import { useApiClient } from '../api/context';
import type { Budget, BudgetAction, BudgetInput, BudgetResponse, Problem } from '../api/types';
import { AdmissionPanel } from '../components/AdmissionPanel';
import { Card } from '../components/Card';
import { SaveFooter } from '../components/SaveFooter';
import { ErrorNotice, Loading } from '../components/Status';
import { formatUsd, humanize } from '../lib/format';
import { useAsync } from '../lib/useAsync';

type CapField = 'dailySoftLimitUsd' | 'dailyLimitUsd' | 'monthlySoftLimitUsd' | 'monthlyLimitUsd';
type FormField = CapField | 'action';

const CAP_FIELDS: { key: CapField; label: string; soft: boolean }[] = [
  { key: 'dailySoftLimitUsd', label: 'Daily soft cap (USD)', soft: true },
  { key: 'dailyLimitUsd', label: 'Daily hard cap (USD)', soft: false },
  { key: 'monthlySoftLimitUsd', label: 'Monthly soft cap (USD)', soft: true },
  { key: 'monthlyLimitUsd', label: 'Monthly hard cap (USD)', soft: false },
];

const PERIODS = [
  { soft: 'dailySoftLimitUsd', hard: 'dailyLimitUsd' },
  { soft: 'monthlySoftLimitUsd', hard: 'monthlyLimitUsd' },
] as const;

const ACTIONS: { value: BudgetAction; label: string; hint: string }[] = [
  { value: 'block', label: 'Block', hint: 'Calls are refused with 429 once a hard cap is reached.' },
  { value: 'warn', label: 'Warn', hint: 'Calls go through; a warning is recorded in the ledger.' },
  { value: 'log', label: 'Log', hint: 'The breach is recorded silently.' },
];

type Draft = Record<CapField, string> & { action: BudgetAction; allowDeferredBilling: boolean };

function draftOf(budget: Budget): Draft {
  const s = (v: number | null) => (v === null ? '' : String(v));
  return {
    dailySoftLimitUsd: s(budget.dailySoftLimitUsd),
    dailyLimitUsd: s(budget.dailyLimitUsd),
    monthlySoftLimitUsd: s(budget.monthlySoftLimitUsd),
    monthlyLimitUsd: s(budget.monthlyLimitUsd),
    action: budget.action,
    allowDeferredBilling: budget.allowDeferredBilling === true,
  };
}

/**
 * Client-side checks: numbers, not negative, soft ≤ hard per period. Empty means "no cap" and is left
 * out of the PUT body (the API refuses null members).
 */
export function validateBudget(draft: Draft): {
  budget?: BudgetInput;
  errors: Partial<Record<FormField, string>>;
} {
  const errors: Partial<Record<FormField, string>> = {};
  const values = {} as Record<CapField, number | null>;
  for (const { key } of CAP_FIELDS) {
    const text = draft[key].trim();
    if (text === '') {
      values[key] = null;
      continue;
    }
    const n = Number(text);
    if (!Number.isFinite(n)) errors[key] = 'Enter an amount in dollars, or leave empty for no cap';
    else if (n < 0) errors[key] = 'A cap cannot be negative';
    values[key] = Number.isFinite(n) ? n : null;
  }
  for (const period of PERIODS) {
    const soft = values[period.soft];
    const hard = values[period.hard];
    if (soft !== null && hard !== null && soft > hard && !errors[period.soft] && !errors[period.hard]) {
      errors[period.soft] = `The soft cap must not be above the hard cap (${formatUsd(hard)})`;
    }
  }
  if (Object.keys(errors).length > 0) return { errors };
  const budget: BudgetInput = { action: draft.action };
  // PUT replaces the budget record: the setting is sent whenever it is on, or it would be cleared.
  if (draft.allowDeferredBilling) budget.allowDeferredBilling = true;
  for (const { key } of CAP_FIELDS) {
    const v = values[key];
    if (v !== null) budget[key] = v;
  }
  return { budget, errors };
}

/** Maps API problems (`budget.dailySoftCapUsd`, `dailySoftCapUsd`) onto the form's fields. */
function splitProblems(problems: readonly Problem[]) {
  const byField: Partial<Record<FormField, string>> = {};
  const general: Problem[] = [];
  const fields: readonly string[] = [...CAP_FIELDS.map((f) => f.key), 'action'];
  for (const p of problems) {
    const key = p.path.replace(/^budget\./, '');
    if (fields.includes(key)) byField[key as FormField] = p.message;
    else general.push(p);
  }
  return { byField, general };
}

function BudgetForm({ data, onSaved }: { data: BudgetResponse; onSaved: (next: BudgetResponse) => void }) {
  const api = useApiClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(data.budget));
  const [errors, setErrors] = useState<Partial<Record<FormField, string>>>({});
  const [general, setGeneral] = useState<Problem[]>([]);
  const [saveError, setSaveError] = useState<Error | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  // A new budget from the API (after a save) replaces the draft; done while rendering (see Guardrails).
  const [draftSource, setDraftSource] = useState(data.budget);
  if (draftSource !== data.budget) {
    setDraftSource(data.budget);
    setDraft(draftOf(data.budget));
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    setSaveError(null);
    setGeneral([]);
    const result = validateBudget(draft);
    setErrors(result.errors);
    if (!result.budget) return;
    setSaving(true);
    try {
      const next = await api.putBudget({ budget: result.budget });
      setSaved(true);
      onSaved(next);
    } catch (err) {
      if (err instanceof ApiError) {
        const { byField, general: rest } = splitProblems(err.problems);
        setErrors(byField);
        setGeneral(rest);
      }
      setSaveError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setSaving(false);
    }
  }

  const describedBy = (key: FormField) => (errors[key] ? `${key}-error` : `${key}-hint`);

  return (
    <form onSubmit={save} noValidate aria-label="Budget caps">
      <div className="budget-grid">
        {CAP_FIELDS.map(({ key, label, soft }) => (
          <div className="field" key={key}>
            <label htmlFor={key}>{label}</label>
            <input
              id={key}
              type="number"
              inputMode="decimal"
              min={0}
              step="any"
              placeholder="no cap"
              value={draft[key]}
              aria-invalid={errors[key] ? true : undefined}
              aria-describedby={describedBy(key)}
              onChange={(e) => {
                setSaved(false);
                setDraft((d) => ({ ...d, [key]: e.target.value }));
              }}
            />
            {errors[key] ? (
              <p className="field-error" id={`${key}-error`}>
                {errors[key]}
              </p>
            ) : (
              <p className="field-hint" id={`${key}-hint`}>
                {soft ? 'Warns once per period' : 'Suspends calls at the edge'}; empty = no cap
              </p>
            )}
          </div>
        ))}
        <div className="field span-all">
          <label htmlFor="action">Action when a cap is reached (SDK budget)</label>
          <select
            id="action"
            value={draft.action}
            aria-invalid={errors.action ? true : undefined}
            aria-describedby={errors.action ? 'action-error' : 'action-hint'}
            onChange={(e) => {
              setSaved(false);
              setDraft((d) => ({ ...d, action: e.target.value as BudgetAction }));
            }}
          >
            {ACTIONS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
          {errors.action ? (
            <p className="field-error" id="action-error">
              {errors.action}
            </p>
          ) : (
            <p className="field-hint" id="action-hint">
              {ACTIONS.find((a) => a.value === draft.action)?.hint}
            </p>
          )}
        </div>
        <div className="field span-all">
          <label htmlFor="allowDeferredBilling">
            <input
              id="allowDeferredBilling"
              type="checkbox"
              checked={draft.allowDeferredBilling}
              aria-describedby="allowDeferredBilling-hint"
              onChange={(e) => {
                setSaved(false);
                const checked = e.target.checked;
                setDraft((d) => ({ ...d, allowDeferredBilling: checked }));
              }}
            />{' '}
            Allow batch, fine-tuning and background calls under a hard cap
          </label>
          <p className="field-hint" id="allowDeferredBilling-hint">
            They bill after the call returns, so the cap cannot hold them; off, the proxy refuses them (403).
          </p>
        </div>
      </div>
      <SaveFooter noun="budget" saving={saving} saved={saved} saveError={saveError} problems={general} />
    </form>
  );
}

export function Budgets() {
  const api = useApiClient();
  const budget = useAsync((signal) => api.getBudget(signal), [api]);
  const [latest, setLatest] = useState<BudgetResponse | null>(null);
  const data = latest ?? budget.data;

  return (
    <div className="page">
      <h1>Budgets</h1>
      {budget.status === 'error' && !data ? (
        <ErrorNotice error={budget.error} onRetry={budget.reload} />
      ) : !data ? (
        <Loading label="Loading budget…" />
      ) : (
        <>
          <div className="stats">
            <Card title="Spent today">
              <p className="stat-value">{formatUsd(data.spend.todayUsd)}</p>
              <p className="muted">
                {data.remaining.dailyUsd === null
                  ? 'No daily cap'
                  : `${formatUsd(data.remaining.dailyUsd)} remaining`}
              </p>
            </Card>
            <Card title="Spent this month">
              <p className="stat-value">{formatUsd(data.spend.monthUsd)}</p>
              <p className="muted">
                {data.remaining.monthlyUsd === null
                  ? 'No monthly cap'
                  : `${formatUsd(data.remaining.monthlyUsd)} remaining`}
              </p>
            </Card>
            <Card title="Status">
              <p className="stat-value stat-text">{humanize(data.status)}</p>
              <p className="muted">{data.flag ? `Kill flag: ${data.flag.state}` : 'No kill flag'}</p>
            </Card>
          </div>
          <AdmissionPanel admission={data.admission} />
          <Card title="Caps">
            <p className="muted small">
              Periods are UTC days and months. The soft cap warns the dashboard and notification channels; the
              hard cap writes a SUSPENDED flag and the edge answers 429 until the period resets or the cap is
              raised.
            </p>
            <BudgetForm data={data} onSaved={setLatest} />
          </Card>
        </>
      )}
    </div>
  );
}
