/**
 * Anthropic Messages requests: `model`, `max_tokens`, `service_tier`, `cache_control` (a `ttl` of `1h`
 * bills writes at 2× input), documents by `file_id` or URL, and the batches endpoint.
 */
import { mentions, mentionsString, positiveInt, type RequestShapeReader } from './types';

/** @example anthropicRequestShape(view) // { model: 'claude-opus-4-5', outputTokens: 64000, … } */
export const anthropicRequestShape: RequestShapeReader = (view) => {
  const model = view.member('model');
  const caches = mentions(view.body, 'cache_control');
  return {
    model: typeof model === 'string' ? model : null,
    outputTokens: positiveInt(view.member('max_tokens')),
    choices: 1,
    serviceTier: view.member('service_tier') === 'priority' ? 'priority' : null,
    // A byte scan, so a body too large to parse is bounded the same way.
    cacheWrite: !caches ? null : mentionsString(view.body, 'ttl', '1h') ? '1h' : '5m',
    serverContext: mentions(view.body, 'file_id') || mentions(view.body, 'file_uri'),
    deferred: /\/batches(?:\/|$)/.test(view.endpoint) ? 'batch' : null,
  };
};
