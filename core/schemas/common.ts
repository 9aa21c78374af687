/**
 * Building blocks shared by the wire schemas: bounded counts, money, labels, identifiers, times.
 * Every field carries a description (and often an example) in zod's metadata, so an OpenAPI
 * document can be generated from the schemas (`z.toJSONSchema`).
 * @module
 */
import { z } from 'zod';

/**
 * Largest token count one call can plausibly have, in any token field and for prompt + completion
 * together (issue 15.2): twice the largest context window in the bundled price data (10,000,000
 * tokens, Llama 4 Scout; a call's prompt and output both fit in its context window). A test in
 * `common.test.ts` keeps it at least twice the largest `context_window` of the price data.
 * Beyond it an event is refused at ingest (400 naming the field of the event): bounding each event
 * also bounds what a batch can add to the sums downstream.
 */
export const MAX_CALL_TOKENS = 20_000_000;
/** Largest token count accepted in any field: {@link MAX_CALL_TOKENS}. */
export const MAX_TOKENS = MAX_CALL_TOKENS;
/** Largest dollar amount accepted for one event. */
export const MAX_EVENT_USD = 1_000_000;
/** Largest latency accepted, in milliseconds (24 hours: long streams included). */
export const MAX_LATENCY_MS = 86_400_000;
/** Longest label (project, feature, session, model, tier). */
export const MAX_LABEL_LENGTH = 256;
/** Longest endpoint path. */
export const MAX_ENDPOINT_LENGTH = 1024;

/**
 * The message of a type (or enum) mismatch: `required (…)` when the member is missing, else
 * `expected …`. Used as the schema-level `error` of every field; checks carry their own messages.
 */
export function expected(what: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? `required (${what})` : `expected ${what}`);
}

/** No C0 control character nor DEL: what labels and names people give must match (log injection). */
// eslint-disable-next-line no-control-regex -- labels must not carry control characters (log injection)
export const NO_CONTROL_CHARACTERS = /^[^\x00-\x1f\x7f]*$/;

/**
 * Text people read in the dashboard and the audit log (key names, correction reasons): no C0 or C1
 * control character, no DEL, no line or paragraph separator (U+2028, U+2029: a line break in a
 * terminal), and no bidirectional control (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), which
 * can make a name read as another (CVE-2021-42574, "Trojan Source"). Lone surrogates: {@link WELL_FORMED}.
 * Event labels keep {@link NO_CONTROL_CHARACTERS}: they come from applications, and refusing a batch
 * over one would lose telemetry.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be refused
export const PLAIN_TEXT = /^[^\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]*$/;

/** No lone surrogate (half a UTF-16 pair is not text: it cannot be stored as UTF-8 or shown). */
export const WELL_FORMED = /^\P{Cs}*$/u;

/** A token count: a whole number from 0 to {@link MAX_TOKENS}. */
export function tokenCount(description: string, example = 1200) {
  return z
    .int({ error: expected('a whole number of tokens') })
    .min(0, { error: 'must not be negative' })
    .max(MAX_TOKENS, {
      error: `must be at most ${MAX_TOKENS} (twice the largest context window of any model)`,
    })
    .meta({ description, example });
}

/**
 * Refinement of an event's usage: prompt + completion tokens at most {@link MAX_CALL_TOKENS}
 * (reported on the completion field). Each field alone is already bounded by {@link tokenCount}.
 */
export function plausibleCallTokens(
  prompt: number,
  completion: number,
  completionPath: PropertyKey[],
  ctx: z.RefinementCtx,
): void {
  // Runs even when a field failed its own check: report the sum only when each part is fine alone.
  const fine = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_CALL_TOKENS;
  if (fine(prompt) && fine(completion) && prompt + completion > MAX_CALL_TOKENS) {
    ctx.addIssue({
      code: 'custom',
      path: completionPath,
      message: `prompt and completion tokens together must be at most ${MAX_CALL_TOKENS} (twice the largest context window of any model)`,
    });
  }
}

/** A dollar amount for one event: a finite number from 0 to {@link MAX_EVENT_USD}. */
export function usdAmount(description: string, example = 0.0042) {
  return z
    .number({ error: expected('a number of US dollars') })
    .min(0, { error: 'must not be negative' })
    .max(MAX_EVENT_USD, { error: `must be at most ${MAX_EVENT_USD}` })
    .meta({ description, example });
}

/** A latency in milliseconds (fractions allowed). */
export function latencyMs(description: string) {
  return z
    .number({ error: expected('a number of milliseconds') })
    .min(0, { error: 'must not be negative' })
    .max(MAX_LATENCY_MS, { error: `must be at most ${MAX_LATENCY_MS} (24 hours)` })
    .meta({ description, example: 850 });
}

/** An HTTP status, or 0 when no response arrived (network error, aborted). */
export function httpStatus(description: string) {
  return z
    .int({ error: expected('an HTTP status code (0 when there was no response)') })
    .min(0, { error: 'must not be negative' })
    .max(999, { error: 'must be at most 999' })
    .meta({ description, example: 200 });
}

/** A printable string of 1 to `max` characters. */
export function label(description: string, example?: string, max = MAX_LABEL_LENGTH) {
  return z
    .string({ error: expected('a string') })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` })
    .regex(NO_CONTROL_CHARACTERS, { error: 'must not contain control characters' })
    .meta(example === undefined ? { description } : { description, example });
}

/** A provider identifier: lowercase letters, digits, `-` and `_` (e.g. `openai`, `anthropic`, `gemini`, `ollama`). */
export function providerId(
  description = 'Provider identifier, lowercase (openai, anthropic, gemini, ollama, …).',
) {
  return z
    .string({ error: expected('a provider identifier') })
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: 'expected a lowercase provider identifier such as openai' })
    .meta({ description, example: 'openai' });
}

/** A model identifier as the provider names it. */
export function modelId(description = 'Model identifier as the provider names it.') {
  return label(description, 'gpt-4o-mini');
}

/** An ISO 8601 date-time with a `Z` or numeric offset, e.g. `2026-04-09T12:00:00.000Z`. */
export function isoDateTime(description: string) {
  return z.iso
    .datetime({ offset: true, error: expected('an ISO 8601 date-time such as 2026-04-09T12:00:00.000Z') })
    .meta({ description, example: '2026-04-09T12:00:00.000Z' });
}

/** An ISO 8601 UTC date-time with exactly millisecond precision, `YYYY-MM-DDTHH:mm:ss.sssZ` (Date#toISOString). */
export function isoUtcMillis(description: string) {
  return z.iso
    .datetime({
      precision: 3,
      error: expected('a UTC date-time with milliseconds, e.g. 2026-04-09T12:00:00.000Z'),
    })
    .meta({ description, example: '2026-04-09T12:00:00.000Z' });
}

/** `sha256:` and 64 lowercase hex digits (core/fingerprint). */
export const FINGERPRINT_REGEX = /^sha256:[0-9a-f]{64}$/;

/** A request fingerprint (guardrail layer 2). */
export function fingerprint(
  description = 'sha256:<64 hex> of the canonical model + messages + tools of the request (core/fingerprint).',
) {
  return z
    .string({ error: expected('a fingerprint') })
    .regex(FINGERPRINT_REGEX, { error: 'expected sha256: followed by 64 lowercase hex digits' })
    .meta({ description, example: 'sha256:' + 'ab'.repeat(32) });
}

/** How the cost of an event was estimated (spec 1.3). */
export const costSourceSchema = z
  .enum(['PROVIDER_REPORTED', 'ORG_RATE', 'PROVIDER_REGISTRY', 'FALLBACK_ECONOMICS'], {
    error: expected('PROVIDER_REPORTED, ORG_RATE, PROVIDER_REGISTRY or FALLBACK_ECONOMICS'),
  })
  .meta({
    description:
      "PROVIDER_REPORTED: the amount the provider reported charging (OpenRouter usage.cost); ORG_RATE: the organization's own rate (self-hosted or contracted); PROVIDER_REGISTRY: exact published prices; FALLBACK_ECONOMICS: model-family estimate.",
  });
export type CostSource = z.infer<typeof costSourceSchema>;

/** Deployment environment of the calling application (spec 2.1). */
export const environmentSchema = z
  .enum(['production', 'staging', 'development'], { error: expected('production, staging or development') })
  .meta({ description: 'Deployment environment of the calling application.' });
export type Environment = z.infer<typeof environmentSchema>;
