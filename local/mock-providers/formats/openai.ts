/** OpenAI: Chat Completions, Responses and Embeddings, JSON and SSE, in the real wire formats. */
import { mockCompletionTokens, mockEmbeddingTokens, mockPromptTokens, TOKEN_TEXT } from '../tokens';
import { json, MOCK_CREATED, modelOf, sseFrame, type MockCall, type MockReply } from '../types';

/** Extra fields a dialect adds (OpenRouter's `provider`, `usage.cost`, processing comments). */
export interface ChatDialect {
  readonly idPrefix: string;
  readonly defaultModel: string;
  /** Adds fields to the usage object. */
  readonly usageExtras?: (prompt: number, completion: number) => Record<string, unknown>;
  /** Adds top-level fields to the completion and to every chunk. */
  readonly topExtras?: Record<string, unknown>;
  /** Usage is in the last chunk whether or not `stream_options.include_usage` was asked. */
  readonly alwaysStreamUsage?: boolean;
  /** SSE comment blocks sent before the first chunk. */
  readonly leadingComments?: readonly string[];
}

const OPENAI_DIALECT: ChatDialect = { idPrefix: 'chatcmpl-', defaultModel: 'gpt-4o-mini' };

function chatUsage(prompt: number, completion: number, dialect: ChatDialect): Record<string, unknown> {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
    ...dialect.usageExtras?.(prompt, completion),
  };
}

/** POST /v1/chat/completions */
export function chatCompletions(call: MockCall, dialect: ChatDialect = OPENAI_DIALECT): MockReply {
  const model = modelOf(call, dialect.defaultModel);
  const prompt = mockPromptTokens(call.body);
  const completion = mockCompletionTokens(call.body, call.chunks);
  const id = dialect.idPrefix + call.id;
  const base = { id, created: MOCK_CREATED, model, ...dialect.topExtras };
  if (call.body?.stream !== true) {
    return json(200, {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: TOKEN_TEXT.repeat(completion),
            refusal: null,
            annotations: [],
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: chatUsage(prompt, completion, dialect),
      service_tier: 'default',
      system_fingerprint: 'fp_mock',
    });
  }
  const streamOptions = call.body.stream_options as { include_usage?: unknown } | undefined;
  const withUsage = dialect.alwaysStreamUsage === true || streamOptions?.include_usage === true;
  const chunk = (choices: unknown[], usage?: unknown): string =>
    sseFrame({
      ...base,
      object: 'chat.completion.chunk',
      service_tier: 'default',
      system_fingerprint: 'fp_mock',
      choices,
      ...(withUsage ? { usage: usage ?? null } : {}),
    });
  const frames: string[] = [...(dialect.leadingComments ?? [])];
  frames.push(
    chunk([
      {
        index: 0,
        delta: { role: 'assistant', content: '', refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ]),
  );
  for (let i = 0; i < completion; i++) {
    frames.push(chunk([{ index: 0, delta: { content: TOKEN_TEXT }, logprobs: null, finish_reason: null }]));
  }
  frames.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
  if (withUsage) frames.push(chunk([], chatUsage(prompt, completion, dialect)));
  frames.push('data: [DONE]\n\n');
  return { kind: 'sse', frames };
}

function responsesUsage(prompt: number, completion: number): Record<string, unknown> {
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: prompt + completion,
  };
}

/** POST /v1/responses */
export function responses(call: MockCall): MockReply {
  const model = modelOf(call, 'gpt-4o-mini');
  const prompt = mockPromptTokens(call.body);
  const completion = mockCompletionTokens(call.body, call.chunks);
  const id = `resp_${call.id}`;
  const msgId = `msg_${call.id}`;
  const text = TOKEN_TEXT.repeat(completion);
  const message = (status: string, content: unknown[]) => ({
    type: 'message',
    id: msgId,
    status,
    role: 'assistant',
    content,
  });
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id,
    object: 'response',
    created_at: MOCK_CREATED,
    status,
    error: null,
    incomplete_details: null,
    instructions: call.body?.instructions ?? null,
    model,
    output,
    parallel_tool_calls: true,
    service_tier: 'default',
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage,
  });
  const done = response(
    'completed',
    [message('completed', [{ type: 'output_text', text, annotations: [] }])],
    responsesUsage(prompt, completion),
  );
  if (call.body?.stream !== true) return json(200, done);
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): string =>
    sseFrame({ type, sequence_number: seq++, ...fields }, type);
  const frames = [
    ev('response.created', { response: response('in_progress', [], null) }),
    ev('response.in_progress', { response: response('in_progress', [], null) }),
    ev('response.output_item.added', { output_index: 0, item: message('in_progress', []) }),
    ev('response.content_part.added', {
      item_id: msgId,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    }),
  ];
  for (let i = 0; i < completion; i++) {
    frames.push(
      ev('response.output_text.delta', {
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        delta: TOKEN_TEXT,
      }),
    );
  }
  frames.push(
    ev('response.output_text.done', { item_id: msgId, output_index: 0, content_index: 0, text }),
    ev('response.content_part.done', {
      item_id: msgId,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text, annotations: [] },
    }),
    ev('response.output_item.done', {
      output_index: 0,
      item: message('completed', [{ type: 'output_text', text, annotations: [] }]),
    }),
    ev('response.completed', { response: done }),
  );
  return { kind: 'sse', frames };
}

/** Dimensions of the fake embedding vectors. */
export const MOCK_EMBEDDING_DIMENSIONS = 8;

/** POST /v1/embeddings (float arrays, or base64 of float32 as the official SDK asks by default). */
export function embeddings(call: MockCall): MockReply {
  const model = modelOf(call, 'text-embedding-3-small');
  const input = call.body?.input;
  const count = Array.isArray(input) && input.length > 0 && typeof input[0] !== 'number' ? input.length : 1;
  const tokens = mockEmbeddingTokens(call.body);
  const base64 = call.body?.encoding_format === 'base64';
  const data = Array.from({ length: count }, (_, index) => {
    const vector = Array.from({ length: MOCK_EMBEDDING_DIMENSIONS }, (_, d) => ((index + 1) * (d + 1)) / 64);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  return json(200, { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

/** OpenAI's error body. */
export function openaiError(status: number, message = `mock provider error ${status}`): MockReply {
  const type =
    status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return json(status, { error: { message, type, param: null, code: null } });
}
