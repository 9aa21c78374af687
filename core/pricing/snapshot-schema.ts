/**
 * The price dataset's shape, and the zod schema that validates a fetched snapshot of it.
 *
 * The dataset is pydantic/genai-prices' `data.json` (the file behind `REMOTE_DATA_JSON_URL`,
 * `prices/new_data/v2/data.json`): an array of providers, each with models, a match rule per model
 * and prices in USD per million tokens. The weekly refresh fetches it, validates it with
 * {@link priceSnapshotSchema} (or {@link parsePriceSnapshot}, which never throws) and stores it; the
 * consumers build a registry from the stored snapshot, or from the bundled copy when none is valid.
 *
 * The schema is deliberately loose where the dataset may grow (unknown provider/model fields and
 * unknown price keys are kept and ignored) and strict where we must understand every value (match
 * clauses, numeric prices, tiers, constraints): a snapshot we could only half-read is rejected, and the
 * previous snapshot stays in force.
 */
import { z } from 'zod';

/** Boolean match logic of genai-prices, evaluated case-insensitively against the model name. */
export type MatchLogic =
  | { readonly equals: string }
  | { readonly starts_with: string }
  | { readonly ends_with: string }
  | { readonly contains: string }
  | { readonly regex: string }
  | { readonly or: readonly MatchLogic[] }
  | { readonly and: readonly MatchLogic[] };

/** A price that changes when the request's total input tokens exceed `start` (the "cliff"). */
export interface TieredPriceData {
  readonly base: number;
  readonly tiers: readonly { readonly start: number; readonly price: number }[];
}

/** One price value, USD per unit of its key (per million tokens for `*_mtok` keys). */
export type PriceValueData = number | TieredPriceData;

/** A model's prices by key (`input_mtok`, `output_mtok`, `cache_read_mtok`, …). */
export type PriceTableData = Readonly<Record<string, PriceValueData | undefined>>;

/** When a conditional price applies: from a UTC date on, or during a daily UTC time window. */
export type PriceConstraintData =
  | { readonly start_date: string; readonly type?: 'start_date' }
  | { readonly start_time: string; readonly end_time: string; readonly type?: 'time_of_date' };

/** A price with its constraint; the last entry whose constraint holds wins. */
export interface ConditionalPriceData {
  readonly constraint?: PriceConstraintData;
  readonly prices: PriceTableData;
}

/** One model of a provider. */
export interface ModelData {
  readonly id: string;
  readonly name?: string;
  readonly match: MatchLogic;
  readonly prices: PriceTableData | readonly ConditionalPriceData[];
  readonly deprecated?: boolean;
  readonly context_window?: number;
}

/** One provider and its models. */
export interface ProviderData {
  readonly id: string;
  readonly name: string;
  readonly api_pattern?: string;
  readonly model_match?: MatchLogic;
  readonly provider_match?: MatchLogic;
  readonly fallback_model_providers?: readonly string[];
  readonly models: readonly ModelData[];
}

/** Providers that a snapshot must contain to be accepted (a truncated download fails here). */
export const REQUIRED_SNAPSHOT_PROVIDERS: readonly string[] = ['openai', 'anthropic', 'google'];

/** Fewer models than this across all providers means the snapshot is truncated or wrong. */
export const MIN_SNAPSHOT_MODELS = 100;

const isValidRegex = (pattern: string): boolean => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

const matchLogicSchema: z.ZodType<MatchLogic> = z.lazy(() =>
  z.union([
    z.strictObject({ equals: z.string() }),
    z.strictObject({ starts_with: z.string() }),
    z.strictObject({ ends_with: z.string() }),
    z.strictObject({ contains: z.string() }),
    z.strictObject({ regex: z.string().refine(isValidRegex, 'invalid regular expression') }),
    z.strictObject({ or: z.array(matchLogicSchema).min(1) }),
    z.strictObject({ and: z.array(matchLogicSchema).min(1) }),
  ]),
);

const usdAmountSchema = z.number().finite().nonnegative();

const tieredPriceSchema = z.looseObject({
  base: usdAmountSchema,
  tiers: z.array(z.looseObject({ start: z.number().int().nonnegative(), price: usdAmountSchema })),
});

const priceTableSchema = z.record(z.string(), z.union([usdAmountSchema, tieredPriceSchema]));

const isoDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), 'invalid date');

const timeOfDaySchema = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/);

const constraintSchema = z.union([
  z.strictObject({ start_date: isoDateSchema, type: z.literal('start_date').optional() }),
  z.strictObject({
    start_time: timeOfDaySchema,
    end_time: timeOfDaySchema,
    type: z.literal('time_of_date').optional(),
  }),
]);

const conditionalPriceSchema = z.looseObject({
  constraint: constraintSchema.optional(),
  prices: priceTableSchema,
});

const modelSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  match: matchLogicSchema,
  prices: z.union([priceTableSchema, z.array(conditionalPriceSchema).min(1)]),
  deprecated: z.boolean().optional(),
  context_window: z.number().optional(),
});

const providerSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  api_pattern: z.string().optional(),
  model_match: matchLogicSchema.optional(),
  provider_match: matchLogicSchema.optional(),
  fallback_model_providers: z.array(z.string()).optional(),
  models: z.array(modelSchema),
});

/**
 * Validates a price snapshot (the parsed JSON of genai-prices' `data.json`).
 *
 * Besides the shape, it rejects snapshots with duplicate provider ids, without the providers in
 * {@link REQUIRED_SNAPSHOT_PROVIDERS}, or with fewer than {@link MIN_SNAPSHOT_MODELS} models.
 */
export const priceSnapshotSchema: z.ZodType<ProviderData[]> = z
  .array(providerSchema)
  .superRefine((providers, ctx) => {
    const ids = new Set<string>();
    let models = 0;
    for (const provider of providers) {
      if (ids.has(provider.id)) {
        ctx.addIssue({ code: 'custom', message: `duplicate provider id '${provider.id}'` });
      }
      ids.add(provider.id);
      models += provider.models.length;
    }
    for (const required of REQUIRED_SNAPSHOT_PROVIDERS) {
      if (!ids.has(required)) ctx.addIssue({ code: 'custom', message: `missing provider '${required}'` });
    }
    if (models < MIN_SNAPSHOT_MODELS) {
      ctx.addIssue({
        code: 'custom',
        message: `only ${models} models (expected at least ${MIN_SNAPSHOT_MODELS})`,
      });
    }
  });

/** The outcome of {@link parsePriceSnapshot}. */
export type PriceSnapshotParseResult =
  | { readonly ok: true; readonly providers: readonly ProviderData[] }
  | { readonly ok: false; readonly error: string };

/**
 * Validates a snapshot without throwing. `json` is the parsed JSON value (or its text, which is parsed
 * first). The error message lists at most the first five issues, with their paths.
 */
export function parsePriceSnapshot(json: unknown): PriceSnapshotParseResult {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json) as unknown;
    } catch (err) {
      return { ok: false, error: `snapshot is not valid JSON: ${(err as Error).message}` };
    }
  }
  const parsed = priceSnapshotSchema.safeParse(value);
  if (parsed.success) return { ok: true, providers: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return { ok: false, error: `invalid price snapshot: ${issues}` };
}
