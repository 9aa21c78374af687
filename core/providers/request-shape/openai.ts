/**
 * OpenAI-style requests (Chat Completions, Responses, Completions, Embeddings; also the OpenAI-compatible
 * providers): `model`, `max_tokens` / `max_completion_tokens` / `max_output_tokens`, `n`, `best_of`,
 * `service_tier`, `background`, `previous_response_id`, `conversation`, stored `prompt`s, `file_id` parts.
 */
import { field } from '../../usage/json-fields';
import { choicesOf, largest, mentions, type RequestShapeReader } from './types';

const BATCH_ENDPOINT = /\/batches(?:\/|$)/;
const FINE_TUNING_ENDPOINT = /\/fine[_-]tun/;

/** @example openaiRequestShape(view) // { model: 'gpt-4o', outputTokens: 100, choices: 2, … } */
export const openaiRequestShape: RequestShapeReader = (view) => {
  const model = view.member('model');
  const tier = view.member('service_tier');
  const prompt = view.member('prompt');
  return {
    model: typeof model === 'string' ? model : null,
    outputTokens: largest(
      view.member('max_tokens'),
      view.member('max_completion_tokens'),
      view.member('max_output_tokens'),
    ),
    choices: choicesOf(view.member('n'), view.member('best_of')),
    serviceTier: tier === 'priority' ? 'priority' : null,
    cacheWrite: null,
    serverContext:
      view.member('previous_response_id') != null ||
      view.member('conversation') != null ||
      typeof field(prompt, 'id') === 'string' ||
      mentions(view.body, 'file_id'),
    deferred: BATCH_ENDPOINT.test(view.endpoint)
      ? 'batch'
      : FINE_TUNING_ENDPOINT.test(view.endpoint)
        ? 'fine_tuning'
        : view.member('background') === true
          ? 'background'
          : null,
  };
};
