/**
 * Amazon Bedrock runtime requests. The model is the path's (`/model/<id>/converse`, `…/invoke`), never
 * the body's; the output bound is Converse's `inferenceConfig.maxTokens`, or the InvokeModel body's own
 * (Anthropic `max_tokens`, Nova `inferenceConfig.max_new_tokens`, Llama `max_gen_len`, Titan
 * `textGenerationConfig.maxTokenCount`); the tier is `serviceTier: { type }`; prompt caching is a
 * `cachePoint` block (Converse) or `cache_control` (the Anthropic body), with a `ttl` of `1h` for the dearer
 * writes. The OpenAI-compatible paths (`/openai/v1/…`, mantle `/v1/…`) name no model in the path and read
 * as OpenAI requests.
 */
import { bedrockModelFromPath, isBedrockOpenAIEndpoint } from '../bedrock-paths';
import { field } from '../../usage/json-fields';
import { openaiRequestShape } from './openai';
import { largest, mentions, mentionsString, type RequestShapeReader } from './types';

const ASYNC_INVOKE = /\/async-invoke(?:\/|$)/;

function tierOf(value: unknown): string | null {
  const tier = typeof value === 'string' ? value : field(value, 'type');
  return tier === 'priority' ? 'priority' : null;
}

/** @example bedrockRequestShape(view) // { model: 'us.amazon.nova-pro-v1:0', outputTokens: 300, … } */
export const bedrockRequestShape: RequestShapeReader = (view) => {
  if (isBedrockOpenAIEndpoint(view.endpoint)) return openaiRequestShape(view);
  const model = bedrockModelFromPath(view.endpoint);
  const inference = view.member('inferenceConfig');
  const caches = mentions(view.body, 'cachePoint') || mentions(view.body, 'cache_control');
  return {
    model,
    outputTokens: largest(
      field(inference, 'maxTokens'),
      field(inference, 'max_new_tokens'),
      view.member('max_tokens'),
      view.member('max_gen_len'),
      field(view.member('textGenerationConfig'), 'maxTokenCount'),
    ),
    choices: 1,
    serviceTier: tierOf(view.member('serviceTier')) ?? tierOf(view.member('service_tier')),
    cacheWrite: !caches ? null : mentionsString(view.body, 'ttl', '1h') ? '1h' : '5m',
    serverContext: false,
    deferred: ASYNC_INVOKE.test(view.endpoint) ? 'background' : null,
  };
};
