/**
 * Gemini `generateContent` requests: the model in the path, `generationConfig.maxOutputTokens` and
 * `candidateCount`, `cachedContent` and files by URI (server-side input), batch and tuning endpoints.
 */
import { geminiModelFromPath } from '../../fingerprint/flavors';
import { field } from '../../usage/json-fields';
import { choicesOf, mentions, positiveInt, type RequestShapeReader } from './types';

/** @example geminiRequestShape(view) // { model: 'gemini-2.5-pro', choices: 4, … } */
export const geminiRequestShape: RequestShapeReader = (view) => {
  const config = view.member('generationConfig') ?? view.member('generation_config');
  const cached = view.member('cachedContent') ?? view.member('cached_content');
  return {
    model: geminiModelFromPath(view.endpoint),
    outputTokens: positiveInt(field(config, 'maxOutputTokens') ?? field(config, 'max_output_tokens')),
    choices: choicesOf(field(config, 'candidateCount'), field(config, 'candidate_count')),
    serviceTier: null,
    cacheWrite: null,
    serverContext:
      typeof cached === 'string' || mentions(view.body, 'fileUri') || mentions(view.body, 'file_uri'),
    deferred: /:batchGenerateContent|\/batches(?:\/|$)/.test(view.endpoint)
      ? 'batch'
      : /\/tunedModels(?:\/|$)/.test(view.endpoint) &&
          !/:generateContent|:streamGenerateContent/.test(view.endpoint)
        ? 'fine_tuning'
        : null,
  };
};
