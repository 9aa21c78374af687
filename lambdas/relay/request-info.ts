/**
 * What the relay reads from a request for its event, from the call's one parse (core/admission
 * `CallShape`, issue 19.2): its fingerprint and, for calls without readable usage, an estimate of its
 * prompt tokens. The fingerprint reads the body bytes with its own bounded canonicalizer, the one the SDK
 * bundles, so that the proxy and the SDK fingerprint a request alike.
 */
import type { CallShape } from '../../core/admission/call-shape';
import { fingerprintRequest, geminiModelFromPath } from '../../core/fingerprint';
import type { RequestFlavor } from '../../core/providers';
import {
  CHARS_PER_TOKEN,
  estimateRequestTokens,
  familyOfModel,
  type TokenCounter,
  type TokenizerFamily,
} from '../../core/usage';
import { bedrockModelFromPath } from '../../core/providers/bedrock-paths';

export { MAX_PARSE_BYTES } from '../../core/admission/call-shape';
/** The exact tokenizer (~0.3 ms per kB) counts bodies up to this size; larger ones use the character ratio. */
export const MAX_COUNTED_BYTES = 64 * 1024;

const FAMILY_OF_FLAVOR: Readonly<Record<RequestFlavor, TokenizerFamily>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  ollama: 'llama',
};

/** `sha256:<hex>` of the request's canonical form, or null (no body, not JSON, no prompt members). */
export function fingerprintOfRequest(flavor: RequestFlavor, body: Uint8Array, path: string): string | null {
  if (body.byteLength === 0) return null;
  // Gemini and Bedrock name the model in the path: the same prompt to two models is two fingerprints.
  const model = flavor === 'gemini' ? geminiModelFromPath(path) : bedrockModelFromPath(path);
  return fingerprintRequest(flavor, body, model === null ? undefined : { model });
}

/**
 * Prompt tokens estimated from the request (0 when it is not JSON). A JSON body too large to have been
 * parsed goes through the family's character ratio by its byte length (an overestimate, as it counts the
 * JSON around the prompt: the safe side for a budget).
 */
export function estimateInputTokens(
  flavor: RequestFlavor,
  body: Uint8Array,
  shape: CallShape,
  model: string | null,
  counter: TokenCounter | undefined,
): number {
  if (body.byteLength === 0 || shape.kind !== 'json') return 0;
  const family = familyOfModel(model, FAMILY_OF_FLAVOR[flavor]);
  const parsed = shape.parsed();
  if (parsed === undefined) return Math.ceil(body.byteLength / CHARS_PER_TOKEN[family]);
  return estimateRequestTokens(
    flavor,
    parsed,
    family,
    body.byteLength <= MAX_COUNTED_BYTES ? counter : undefined,
  );
}
