/**
 * Generic editing of the guardrail policy: `policy.layers` is an object keyed by layer id, each
 * section holding `enabled`, a mode (`mode`, or `…Mode`) and numeric thresholds. Fields ending in
 * `Nanos` are money and are edited in USD.
 */
import type { LayerPolicy, Policy, Problem } from '../api/types';
import { humanize } from './format';

export interface LayerMeta {
  ordinal: number;
  name: string;
  description: string;
}

/** The five layers of spec 1.5, by the engine's layer ids. Unknown ids still render, after these. */
export const LAYER_META: Readonly<Record<string, LayerMeta>> = {
  financialLimits: {
    ordinal: 1,
    name: 'Financial Limits',
    description: 'Daily and monthly soft and hard caps on the organization’s spend (UTC periods). A soft cap warns; a hard cap suspends.',
  },
  identicalLoop: {
    ordinal: 2,
    name: 'Dumb Loop Detector',
    description: 'Kills an agent that sends the same request (model + messages + tools fingerprint) several times in a row.',
  },
  contextGrowth: {
    ordinal: 3,
    name: 'Smart Loop Detector',
    description: 'Kills an agent whose context grows monotonically and linearly — re-appending the same error turn after turn.',
  },
  rpsBurst: {
    ordinal: 4,
    name: 'RPS Burst Protection',
    description: 'Flags a key that sustains more requests per minute than allowed (sliding window).',
  },
  premiumConcentration: {
    ordinal: 5,
    name: 'Premium Model Concentration',
    description: 'Flags spend that concentrates on the most expensive models (injection, hijacked routing, a bad selector).',
  },
};

export const MODES = ['hard_stop', 'throttle', 'alert'] as const;

export type FieldKind = 'boolean' | 'mode' | 'usd' | 'number' | 'text';

export function fieldKind(key: string, value: unknown): FieldKind | undefined {
  if (typeof value === 'boolean') return 'boolean';
  if (key === 'mode' || /Mode$/.test(key)) return 'mode';
  if (typeof value === 'number' || value === null) return /Nanos$/.test(key) ? 'usd' : 'number';
  if (typeof value === 'string') return 'text';
  return undefined;
}

/** The label of a field, from its key: `dailySoftCapNanos` → `Daily soft cap (USD)`. */
export function fieldLabel(key: string): string {
  if (key === 'enabled') return 'Enabled';
  const base = humanize(key);
  if (/Nanos$/.test(key) || /Usd$/.test(key)) return `${base} (USD)`;
  if (/Ms$/.test(key)) return `${base} (ms)`;
  return base;
}

export interface PolicyView {
  /** Sections in layer order. */
  layers: [string, LayerPolicy][];
  /** The policy with these sections in place, ready for PUT /v1/budget. */
  rebuild(sections: Record<string, LayerPolicy>): Policy;
}

const isSection = (v: unknown): v is LayerPolicy => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads `policy.layers`; a policy with its sections at the top level is accepted too. */
export function policyView(policy: Policy): PolicyView {
  const nested = isSection(policy.layers);
  const source: Record<string, unknown> = nested ? (policy.layers as Record<string, unknown>) : policy;
  const layers = Object.entries(source)
    .filter((e): e is [string, LayerPolicy] => isSection(e[1]))
    .sort(([a], [b]) => (LAYER_META[a]?.ordinal ?? 99) - (LAYER_META[b]?.ordinal ?? 99));
  return {
    layers,
    rebuild: (sections) =>
      nested ? { ...policy, layers: { ...policy.layers, ...sections } } : ({ ...policy, ...sections } as Policy),
  };
}

export type Draft = Record<string, Record<string, string | boolean>>;

export function draftOf(layers: [string, LayerPolicy][]): Draft {
  const draft: Draft = {};
  for (const [id, section] of layers) {
    const fields: Record<string, string | boolean> = {};
    for (const [key, value] of Object.entries(section)) {
      const kind = fieldKind(key, value);
      if (kind === 'boolean') fields[key] = value as boolean;
      else if (kind === 'usd') fields[key] = value === null ? '' : String((value as number) / 1e9);
      else if (kind === 'number') fields[key] = value === null ? '' : String(value);
      else if (kind === 'mode' || kind === 'text') fields[key] = String(value);
    }
    draft[id] = fields;
  }
  return draft;
}

/** Turns the draft back into policy sections, or returns the field errors keyed `<layer>.<field>`. */
export function sectionsOf(
  layers: [string, LayerPolicy][],
  draft: Draft,
): { sections: Record<string, LayerPolicy>; errors: Record<string, string> } {
  const sections: Record<string, LayerPolicy> = {};
  const errors: Record<string, string> = {};
  for (const [id, original] of layers) {
    const out: LayerPolicy = { ...original };
    for (const [key, value] of Object.entries(draft[id] ?? {})) {
      const kind = fieldKind(key, original[key]);
      if (kind === 'usd' || kind === 'number') {
        const text = String(value).trim();
        if (text === '') {
          if (original[key] === null) out[key] = null;
          else errors[`${id}.${key}`] = 'Enter a number';
          continue;
        }
        const n = Number(text);
        if (!Number.isFinite(n)) errors[`${id}.${key}`] = 'Enter a number';
        else if (n < 0) errors[`${id}.${key}`] = 'Must not be negative';
        else out[key] = kind === 'usd' ? Math.round(n * 1e9) : n;
      } else {
        out[key] = value;
      }
    }
    sections[id] = out;
  }
  return { sections, errors };
}

/** Maps the API's problems onto `<layer>.<field>` keys; the rest stay general. */
export function policyProblems(problems: readonly Problem[]): { byField: Record<string, string>; general: Problem[] } {
  const byField: Record<string, string> = {};
  const general: Problem[] = [];
  for (const p of problems) {
    const m = /^(?:policy\.)?(?:layers\.)?([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)$/.exec(p.path);
    if (m) byField[`${m[1]}.${m[2]}`] = p.message;
    else general.push(p);
  }
  return { byField, general };
}

export function layerTitle(id: string): string {
  const meta = LAYER_META[id];
  return meta ? `${meta.ordinal} · ${meta.name}` : humanize(id);
}
