/**
 * Per-organization negotiated rates: enterprise discounts and contracted per-model prices.
 *
 * Precedence for one call (the first that applies wins; they do not stack):
 * 1. a per-model override (`models`), keyed `provider:model` or `model` (lower-case; the model is the
 *    name as reported, or the registry's matched model id); it replaces the list price of every token
 *    class, is flat (no long-context band), and also prices models the registry does not know.
 *    A key ending in `*` prices a whole family by prefix: `llama:*` is every model called through the
 *    `llama` provider (a self-hosted endpoint), `llama:llama-3.3-*` a model family on it, `mistral-*` a
 *    family on any provider. Exact keys win over patterns, longer patterns over shorter ones. A rate of
 *    0 is a valid price (hardware already paid for). Calls priced this way report `ORG_RATE`;
 * 2. a per-provider multiplier (`providers`, keyed by Spendguard provider id);
 * 3. the organization-wide `multiplier`.
 *
 * The service-tier multiplier (batch, flex, priority) still applies on top of all three.
 * Multipliers are exact to 6 decimals (0.85 → 17/20), prices to 6 decimals of USD/MTok.
 */
import { z } from 'zod';
import { OrgRatesError } from './errors';
import { modelPriceFromUsd, type ModelPrice } from './model-price';
import { scaleDecimal } from './money';
import type { PriceResolution } from './registry';
import { multiplyRationals, ONE, reduceRational, type Rational, type TierMultipliers } from './tiers';

/** A contracted price for one model, USD per million tokens. Unset cache prices default to `input`. */
export interface NegotiatedModelRate {
  readonly inputUsdPerMTok: number;
  readonly outputUsdPerMTok: number;
  readonly cacheReadUsdPerMTok?: number;
  readonly cacheWrite5mUsdPerMTok?: number;
  readonly cacheWrite1hUsdPerMTok?: number;
}

/** An organization's negotiated rates. */
export interface OrgRates {
  /** Applies to every list price, e.g. 0.8 for a 20 % discount. */
  readonly multiplier?: number;
  /** Per-provider multipliers (Spendguard provider id → multiplier); win over `multiplier`. */
  readonly providers?: Readonly<Record<string, number>>;
  /** Per-model contracted prices; win over both multipliers. */
  readonly models?: Readonly<Record<string, NegotiatedModelRate>>;
  /**
   * Bedrock application inference profiles → the model they route to (`bedrock-profiles.ts`): keyed by
   * the profile ARN or its id, valued by a model id or system profile id
   * (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`).
   */
  readonly bedrockProfiles?: Readonly<Record<string, string>>;
}

/** Most Bedrock application profiles mapped per organization. */
export const MAX_BEDROCK_PROFILES = 500;

const MAX_MULTIPLIER = 100;
/** Highest accepted price, USD per million tokens (above every published price by far). */
const MAX_PRICE_USD_PER_MTOK = 100_000;
const MAX_KEY_LENGTH = 256;
/** Most model rates of one organization. */
export const MAX_MODEL_RATES = 200;
const multiplierSchema = z.number().finite().min(0).max(MAX_MULTIPLIER);
const priceSchema = z.number().finite().min(0).max(MAX_PRICE_USD_PER_MTOK);
/** `provider:model`, `model`, or either ending in `*` (a prefix); `*` nowhere else. */
const modelKeySchema = z
  .string()
  .min(1)
  .max(MAX_KEY_LENGTH)
  .regex(/^[^*\s]+\*?$/, { error: 'expected provider:model, model, or a prefix ending in * (e.g. llama:*)' });

/** Most per-provider multipliers of one organization (Spendguard knows a few dozen providers). */
export const MAX_PROVIDER_RATES = 100;
/**
 * A Spendguard provider id (core/schemas `providerId()`), in any case: keys are lower-cased when the
 * rates are compiled, and rates saved before this check may be mixed case.
 */
const PROVIDER_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

/**
 * Per-provider multipliers, bounded before the keys are checked so that a huge map answers one problem,
 * not one per key. Two keys that differ only in case would name one provider with two multipliers.
 */
const providerRatesSchema = z.record(z.string(), multiplierSchema).superRefine((providers, ctx) => {
  const keys = Object.keys(providers);
  if (keys.length > MAX_PROVIDER_RATES) {
    ctx.addIssue({ code: 'custom', message: `at most ${MAX_PROVIDER_RATES} provider multipliers` });
    return;
  }
  const seen = new Set<string>();
  for (const key of keys) {
    const id = key.toLowerCase();
    if (!PROVIDER_KEY.test(key)) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: 'expected a provider id such as openai (letters, digits, - and _, at most 64)',
      });
    } else if (seen.has(id)) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `names the same provider as another key (${id})`,
      });
    }
    seen.add(id);
  }
});

/** Validates {@link OrgRates} where they are configured (dashboard, API), before they are stored. */
export const orgRatesSchema = z.strictObject({
  multiplier: multiplierSchema.optional(),
  providers: providerRatesSchema.optional(),
  models: z
    .record(
      modelKeySchema,
      z.strictObject({
        inputUsdPerMTok: priceSchema,
        outputUsdPerMTok: priceSchema,
        cacheReadUsdPerMTok: priceSchema.optional(),
        cacheWrite5mUsdPerMTok: priceSchema.optional(),
        cacheWrite1hUsdPerMTok: priceSchema.optional(),
      }),
    )
    .refine((models) => Object.keys(models).length <= MAX_MODEL_RATES, {
      error: `at most ${MAX_MODEL_RATES} model rates`,
    })
    .optional(),
  bedrockProfiles: z
    .record(
      z
        .string()
        .min(1)
        .max(MAX_KEY_LENGTH)
        .regex(
          /^(?:arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:application-inference-profile\/)?[a-zA-Z0-9]+$/,
          {
            error: 'expected an application-inference-profile ARN or its id',
          },
        ),
      z.string().min(1).max(MAX_KEY_LENGTH),
    )
    .refine((p) => Object.keys(p).length <= MAX_BEDROCK_PROFILES, {
      error: `at most ${MAX_BEDROCK_PROFILES} Bedrock profiles`,
    })
    .optional(),
});

/**
 * {@link orgRatesSchema} as stored rates are read back (pricing, `GET /v1/pricing/rates`): provider keys
 * and their count unchecked, so that rates saved before those checks existed price as they did; the
 * next write must pass the full check.
 */
export const storedOrgRatesSchema = orgRatesSchema.extend({
  providers: z.record(z.string().min(1), multiplierSchema).optional(),
});

/** {@link OrgRates} compiled for the hot path. Build once per organization with {@link compileOrgRates}. */
export interface CompiledOrgRates {
  readonly kind: 'compiled-org-rates';
  readonly multiplier: Rational | null;
  readonly providers: ReadonlyMap<string, Rational>;
  readonly models: ReadonlyMap<string, ModelPrice>;
  /** Prefix keys (`llama:*`), longest first. */
  readonly patterns: readonly { readonly prefix: string; readonly price: ModelPrice }[];
  /** Bedrock application profile (ARN or id, lower-case) → model id. */
  readonly bedrockProfiles: ReadonlyMap<string, string>;
  /** Decisions per price resolution (resolutions are cached by the registry, so identity is stable). */
  readonly decisions: WeakMap<PriceResolution, OrgRateDecision>;
}

/** What the org rates do to one resolved (provider, model): the price and the per-tier multipliers. */
export type OrgRateDecision =
  | { readonly kind: 'none' }
  | { readonly kind: 'multiplier'; readonly tiers: TierMultipliers }
  | { readonly kind: 'override'; readonly price: ModelPrice };

const MULTIPLIER_DECIMALS = 6;
const MULTIPLIER_SCALE = 10 ** MULTIPLIER_DECIMALS;

function toRational(value: number, where: string): Rational {
  const parsed = multiplierSchema.safeParse(value);
  if (!parsed.success) throw new OrgRatesError(`${where}: expected a multiplier in [0, ${MAX_MULTIPLIER}]`);
  return reduceRational({ num: scaleDecimal(value, MULTIPLIER_DECIMALS), den: MULTIPLIER_SCALE });
}

/**
 * Compiles negotiated rates for the hot path.
 *
 * @throws OrgRatesError when a multiplier or price is negative, non-finite or out of range.
 */
export function compileOrgRates(rates: OrgRates): CompiledOrgRates {
  const parsed = storedOrgRatesSchema.safeParse(rates);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OrgRatesError(`Invalid org rates at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? ''}`);
  }
  const providers = new Map<string, Rational>();
  for (const [provider, multiplier] of Object.entries(rates.providers ?? {})) {
    providers.set(provider.trim().toLowerCase(), toRational(multiplier, `providers.${provider}`));
  }
  const models = new Map<string, ModelPrice>();
  const patterns: { prefix: string; price: ModelPrice }[] = [];
  for (const [key, rate] of Object.entries(rates.models ?? {})) {
    const name = key.trim().toLowerCase();
    const price = modelPriceFromUsd({
      input: rate.inputUsdPerMTok,
      output: rate.outputUsdPerMTok,
      ...(rate.cacheReadUsdPerMTok !== undefined && { cacheRead: rate.cacheReadUsdPerMTok }),
      ...(rate.cacheWrite5mUsdPerMTok !== undefined && { cacheWrite5m: rate.cacheWrite5mUsdPerMTok }),
      ...(rate.cacheWrite1hUsdPerMTok !== undefined && { cacheWrite1h: rate.cacheWrite1hUsdPerMTok }),
    });
    if (name.endsWith('*')) patterns.push({ prefix: name.slice(0, -1), price });
    else models.set(name, price);
  }
  patterns.sort((a, b) => b.prefix.length - a.prefix.length);
  return {
    kind: 'compiled-org-rates',
    multiplier: rates.multiplier === undefined ? null : toRational(rates.multiplier, 'multiplier'),
    providers,
    models,
    patterns,
    bedrockProfiles: new Map(
      Object.entries(rates.bedrockProfiles ?? {}).map(([k, v]) => [k.trim().toLowerCase(), v.trim()]),
    ),
    decisions: new WeakMap(),
  };
}

/** The longest prefix key that one of the names starts with. */
function matchPattern(rates: CompiledOrgRates, names: readonly string[]): ModelPrice | undefined {
  for (const pattern of rates.patterns) {
    if (names.some((name) => name.startsWith(pattern.prefix))) return pattern.price;
  }
  return undefined;
}

/**
 * Decides how the org rates apply to a resolved call (see the module comment for the precedence).
 * Cached per resolution in the compiled rates; multipliers are combined with each service tier's once.
 */
export function orgRateDecision(rates: CompiledOrgRates, resolution: PriceResolution): OrgRateDecision {
  const cached = rates.decisions.get(resolution);
  if (cached !== undefined) return cached;
  const provider = resolution.requestedProvider;
  const model = resolution.canonicalModel;
  const matched = resolution.matchedModel;
  const override =
    rates.models.get(`${provider}:${model}`) ??
    rates.models.get(`${provider}:${matched}`) ??
    rates.models.get(model) ??
    rates.models.get(matched) ??
    matchPattern(rates, [`${provider}:${model}`, model, `${provider}:${matched}`, matched]);
  let decision: OrgRateDecision;
  if (override !== undefined) decision = { kind: 'override', price: override };
  else {
    const multiplier = rates.providers.get(provider) ?? rates.multiplier;
    if (multiplier === null || (multiplier.num === ONE.num && multiplier.den === ONE.den))
      decision = { kind: 'none' };
    else {
      const t = resolution.tiers;
      decision = {
        kind: 'multiplier',
        tiers: {
          standard: multiplyRationals(t.standard, multiplier),
          batch: multiplyRationals(t.batch, multiplier),
          flex: multiplyRationals(t.flex, multiplier),
          priority: multiplyRationals(t.priority, multiplier),
        },
      };
    }
  }
  rates.decisions.set(resolution, decision);
  return decision;
}
