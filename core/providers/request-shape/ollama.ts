/** Ollama's native requests: `model` and `options.num_predict`. */
import { field } from '../../usage/json-fields';
import { positiveInt, type RequestShapeReader } from './types';

/** @example ollamaRequestShape(view) // { model: 'llama3.2', outputTokens: 128, … } */
export const ollamaRequestShape: RequestShapeReader = (view) => {
  const model = view.member('model');
  return {
    model: typeof model === 'string' ? model : null,
    outputTokens: positiveInt(field(view.member('options'), 'num_predict')),
    choices: 1,
    serviceTier: null,
    cacheWrite: null,
    serverContext: false,
    deferred: null,
  };
};
