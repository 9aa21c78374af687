/**
 * The request-shape reader of each dialect (issue 19.2): `requestShapeReaderOf(entry, endpoint)` picks a
 * provider's own reader when it declares one, else its dialect's.
 * @module
 */
import type { ProviderEntry, RequestFlavor } from '../types';
import { anthropicRequestShape } from './anthropic';
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

/** The reader for a provider's request: its own, else its dialect's. */
export function requestShapeReaderOf(entry: ProviderEntry, flavor: RequestFlavor): RequestShapeReader {
  return entry.requestShape ?? REQUEST_SHAPE_READERS[flavor];
}
