/**
 * What the relay reads from a request body for its event, cheaply and only when needed: the model it
 * names, its fingerprint, and (for calls without readable usage) an estimate of its prompt tokens.
 */
import { fingerprintRequest, geminiModelFromPath } from '../../core/fingerprint';
import type { RequestFlavor } from '../../core/providers';
import {
  CHARS_PER_TOKEN,
  estimateRequestTokens,
  familyOfModel,
  type TokenCounter,
  type TokenizerFamily,
} from '../../core/usage';
import { bedrockModelFromPath } from '../../core/usage/bedrock';

/**
 * The relay's bound on parsing a request body (issue 15.1): bodies larger than this are never given to
 * `JSON.parse` on the proxy path (the prompt estimate falls back to the byte length; the usage tap
 * does not see them), because parsing several MB blocks the event loop for every other caller.
 * The fingerprint has its own bounds (core/fingerprint `FINGERPRINT_BOUNDS`).
 */
export const MAX_PARSE_BYTES = 1024 * 1024;
/** The exact tokenizer (~0.3 ms per kB) counts bodies up to this size; larger ones use the character ratio. */
export const MAX_COUNTED_BYTES = 64 * 1024;
/** The top-level `model` is nearly always near the start; only this much is scanned for it. */
const MODEL_SCAN_BYTES = 64 * 1024;
const MODEL_FIELD = /"model"\s*:\s*"((?:[^"\\]|\\.){1,256})"/;

const FAMILY_OF_FLAVOR: Readonly<Record<RequestFlavor, TokenizerFamily>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  ollama: 'llama',
};

/**
 * The model a request names: a `"model": "…"` member in the body (escaped quotes inside prompt
 * strings cannot match), else a Gemini-style `/models/<model>` path segment.
 */
export function requestedModelOf(body: Uint8Array, path: string): string | null {
  if (body.byteLength > 0) {
    const head = Buffer.from(
      body.buffer,
      body.byteOffset,
      Math.min(body.byteLength, MODEL_SCAN_BYTES),
    ).toString('utf8');
    const m = MODEL_FIELD.exec(head);
    if (m?.[1] !== undefined) {
      try {
        return JSON.parse(`"${m[1]}"`) as string;
      } catch {
        return m[1];
      }
    }
  }
  return geminiModelFromPath(path) ?? bedrockModelFromPath(path);
}

/** `sha256:<hex>` of the request's canonical form, or null (no body, not JSON, no prompt members). */
export function fingerprintOfRequest(flavor: RequestFlavor, body: Uint8Array, path: string): string | null {
  if (body.byteLength === 0) return null;
  const model = flavor === 'gemini' ? geminiModelFromPath(path) : bedrockModelFromPath(path);
  return fingerprintRequest(flavor, body, model === null ? undefined : { model });
}

/**
 * Prompt tokens estimated from the request body (0 when it is not JSON). A body over
 * {@link MAX_PARSE_BYTES} is not parsed: its whole byte length goes through the family's character
 * ratio (an overestimate, as it counts the JSON around the prompt: the safe side for a budget).
 */
export function estimateInputTokens(
  flavor: RequestFlavor,
  body: Uint8Array,
  model: string | null,
  counter: TokenCounter | undefined,
): number {
  if (body.byteLength === 0) return 0;
  const family = familyOfModel(model, FAMILY_OF_FLAVOR[flavor]);
  if (body.byteLength > MAX_PARSE_BYTES) return Math.ceil(body.byteLength / CHARS_PER_TOKEN[family]);
  try {
    const parsed: unknown = JSON.parse(
      Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
    );
    return estimateRequestTokens(
      flavor,
      parsed,
      family,
      body.byteLength <= MAX_COUNTED_BYTES ? counter : undefined,
    );
  } catch {
    return 0;
  }
}

/**
 * The request body as the usage parsers may read it (model and service-tier fallbacks, prompt
 * estimates): the body itself up to {@link MAX_PARSE_BYTES}, else nothing (the relay then takes the
 * model from {@link requestedModelOf} and the estimate from {@link estimateInputTokens}).
 */
export function parseableRequestBody(body: Uint8Array): Uint8Array | undefined {
  return body.byteLength <= MAX_PARSE_BYTES ? body : undefined;
}
