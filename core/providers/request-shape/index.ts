/**
 * The request-shape reader of each dialect (issue 19.2): `requestShapeReaderOf(entry, flavor)` picks a
 * provider's own reader when it has one, else its dialect's.
 * @module
 */
import type { ProviderEntry, RequestFlavor } from '../types';
import { anthropicRequestShape } from './anthropic';
import { bedrockRequestShape } from './bedrock';
import { geminiRequestShape } from './gemini';
import { ollamaRequestShape } from './ollama';
import { openaiRequestShape } from './openai';
import type { RequestShapeReader } from './types';

export type { CacheWrite, DeferredBilling, RequestShape, RequestShapeReader, RequestView } from './types';
export { MAX_CHOICES } from './types';

/** The reader of each request dialect. */
export const REQUEST_SHAPE_READERS: Readonly<Record<RequestFlavor, RequestShapeReader>> = Object.freeze({
  openai: openaiRequestShape,
  anthropic: anthropicRequestShape,
  gemini: geminiRequestShape,
  ollama: ollamaRequestShape,
});

/**
 * Readers of providers whose bodies are not shaped like their dialect's (Bedrock: Converse and the
 * InvokeModel bodies, the model in the path). Kept here rather than on the catalog entry, so that code
 * that detects providers without bounding their requests (the SDK's entry) does not carry them.
 */
const PROVIDER_READERS: Readonly<Partial<Record<string, RequestShapeReader>>> = Object.freeze({
  bedrock: bedrockRequestShape,
});

/** The reader for a provider's request: its own, else its dialect's. */
export function requestShapeReaderOf(entry: ProviderEntry, flavor: RequestFlavor): RequestShapeReader {
  return PROVIDER_READERS[entry.id] ?? REQUEST_SHAPE_READERS[flavor];
}
