/** Anthropic Messages, JSON and SSE (message_start … message_stop, cumulative message_delta usage). */
import { mockCompletionTokens, mockPromptTokens, TOKEN_TEXT } from '../tokens';
import { json, modelOf, sseFrame, type MockCall, type MockReply } from '../types';

/** POST /v1/messages */
export function messages(call: MockCall): MockReply {
  const model = modelOf(call, 'claude-haiku-4-5');
  const prompt = mockPromptTokens(call.body);
  const completion = mockCompletionTokens(call.body, call.chunks);
  const id = `msg_${call.id}`;
  const usage = (output: number) => ({
    input_tokens: prompt,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: 'standard',
  });
  if (call.body?.stream !== true) {
    return json(200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: TOKEN_TEXT.repeat(completion) }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(completion),
    });
  }
  const ev = (type: string, fields: Record<string, unknown>): string => sseFrame({ type, ...fields }, type);
  const frames = [
    ev('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(1),
      },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ev('ping', {}),
  ];
  for (let i = 0; i < completion; i++) {
    frames.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: TOKEN_TEXT } }));
  }
  frames.push(
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: {
        input_tokens: prompt,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: completion,
      },
    }),
    ev('message_stop', {}),
  );
  return { kind: 'sse', frames };
}

/** Anthropic's error body. */
export function anthropicError(status: number, message = `mock provider error ${status}`): MockReply {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status >= 500
          ? 'api_error'
          : status === 401
            ? 'authentication_error'
            : 'invalid_request_error';
  return json(status, {
    type: 'error',
    error: { type, message },
    request_id: 'req_mock',
  });
}
