/**
 * Generic editing of the guardrail policy: `policy.layers` is an object keyed by layer id, each
 * section holding `enabled`, a mode (`mode`, or `…Mode`) and numeric thresholds. Fields ending in
 * `Nanos` are money and are edited in USD.
 */
import type { LayerInfo, LayerPolicy, Policy, PolicyInput, Problem } from '../api/types';
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
    description:
      'Daily and monthly soft and hard caps on the organization’s spend (UTC periods). A soft cap warns; a hard cap suspends.',
  },
  identicalLoop: {
    ordinal: 2,
    name: 'Dumb Loop Detector',
    description:
      'Kills an agent that sends the same request (model + messages + tools fingerprint) several times in a row.',
  },
  contextGrowth: {
    ordinal: 3,
    name: 'Smart Loop Detector',
    description:
      'Kills an agent whose context grows monotonically and linearly — re-appending the same error turn after turn.',
  },
  rpsBurst: {
    ordinal: 4,
    name: 'RPS Burst Protection',
    description: 'Flags a key that sustains more requests per minute than allowed (sliding window).',
  },
  premiumConcentration: {
    ordinal: 5,
    name: 'Premium Model Concentration',
    description:
      'Flags spend that concentrates on the most expensive models (injection, hijacked routing, a bad selector).',
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
  /** Name, ordinal and description per layer id: the API's `layerInfo`, else the built-in table. */
  meta: Record<string, LayerMeta>;
  /** The PUT /v1/budget form of these sections. */
  rebuild(sections: Record<string, LayerPolicy>): PolicyInput;
}

const isSection = (v: unknown): v is LayerPolicy => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads `policy.layers` (and `policy.layerInfo` when the API sends it). */
export function policyView(policy: Policy): PolicyView {
  const meta: Record<string, LayerMeta> = { ...LAYER_META };
  for (const info of Array.isArray(policy.layerInfo) ? policy.layerInfo : ([] as LayerInfo[])) {
    if (info && typeof info.id === 'string') {
      meta[info.id] = {
        ordinal: typeof info.ordinal === 'number' ? info.ordinal : (meta[info.id]?.ordinal ?? 99),
        name: info.name || meta[info.id]?.name || humanize(info.id),
        description: info.description || meta[info.id]?.description || '',
      };
    }
  }
  const layers = Object.entries(isSection(policy.layers) ? policy.layers : {})
    .filter((e): e is [string, LayerPolicy] => isSection(e[1]))
    .sort(([a], [b]) => (meta[a]?.ordinal ?? 99) - (meta[b]?.ordinal ?? 99));
  return { layers, meta, rebuild: (sections) => ({ layers: sections }) };
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

/** Maps the API's problems onto the draft's `<layer>.<field>` keys; the rest stay general. */
export function policyProblems(
  problems: readonly Problem[],
  draft: Draft,
): { byField: Record<string, string>; general: Problem[] } {
  const byField: Record<string, string> = {};
  const general: Problem[] = [];
  for (const p of problems) {
    const m = /^(?:policy\.)?(?:layers\.)?([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)$/.exec(p.path);
    const layer = m?.[1];
    const field = m?.[2];
    if (layer && field && draft[layer] && field in draft[layer]) byField[`${layer}.${field}`] = p.message;
    else general.push(p);
  }
  return { byField, general };
}

export function layerTitle(id: string, meta: Record<string, LayerMeta> = LAYER_META): string {
  const m = meta[id];
  return m ? `${m.ordinal} · ${m.name}` : humanize(id);
}
