/**
 * What the relay reads from a request body for its event, cheaply and only when needed: the model it
 * names, its fingerprint, and (for calls without readable usage) an estimate of its prompt tokens.
 */
import { fingerprintRequest, geminiModelFromPath } from '../../core/fingerprint';
import type { RequestFlavor } from '../../core/providers';
import {
  estimateRequestTokens,
  familyOfModel,
  type TokenCounter,
  type TokenizerFamily,
} from '../../core/usage';

/** Bodies larger than this are not parsed for an estimate (the fingerprint still streams over them). */
const MAX_PARSE_BYTES = 8 * 1024 * 1024;
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
  return geminiModelFromPath(path);
}

/** `sha256:<hex>` of the request's canonical form, or null (no body, not JSON, no prompt members). */
export function fingerprintOfRequest(flavor: RequestFlavor, body: Uint8Array, path: string): string | null {
  if (body.byteLength === 0) return null;
  const model = flavor === 'gemini' ? geminiModelFromPath(path) : null;
  return fingerprintRequest(flavor, body, model === null ? undefined : { model });
}

/** Prompt tokens estimated from the request body (0 when it is not JSON or too large). */
export function estimateInputTokens(
  flavor: RequestFlavor,
  body: Uint8Array,
  model: string | null,
  counter: TokenCounter | undefined,
): number {
  if (body.byteLength === 0 || body.byteLength > MAX_PARSE_BYTES) return 0;
  try {
    const parsed: unknown = JSON.parse(
      Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
    );
    return estimateRequestTokens(flavor, parsed, familyOfModel(model, FAMILY_OF_FLAVOR[flavor]), counter);
  } catch {
    return 0;
  }
}
