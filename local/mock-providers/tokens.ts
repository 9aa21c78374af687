/**
 * Deterministic token counts for the fake providers, so tests can predict the usage a call reports:
 * - prompt tokens: `max(1, ceil(chars / 4))` over every prompt text of the request (system prompt,
 *   instructions, message contents, `input`, `prompt`);
 * - completion tokens: the requested maximum (`max_tokens`, `max_completion_tokens`,
 *   `max_output_tokens`) capped at {@link MAX_DEFAULT_COMPLETION}, {@link DEFAULT_COMPLETION_TOKENS}
 *   when none is asked, or the `x-mock-chunks` request header when present. Each completion token is
 *   one streamed chunk of the text {@link TOKEN_TEXT}.
 */

/** Characters per prompt token in the fake providers' arithmetic. */
export const MOCK_CHARS_PER_TOKEN = 4;
/** Completion tokens when the request does not bound them. */
export const DEFAULT_COMPLETION_TOKENS = 8;
/** A requested maximum above this is capped (a real model rarely uses all of `max_tokens`). */
export const MAX_DEFAULT_COMPLETION = 64;
/** Upper bound of the `x-mock-chunks` header. */
export const MAX_MOCK_CHUNKS = 100_000;
/** The text of one completion token. */
export const TOKEN_TEXT = 'tok ';

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function countText(value: unknown, depth = 0): number {
  if (depth > 16) return 0;
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + countText(v, depth + 1), 0);
  const obj = asObject(value);
  if (obj === undefined) return 0;
  // Content blocks and messages: only their text-bearing members count.
  let n = 0;
  for (const key of ['content', 'text']) n += countText(obj[key], depth + 1);
  return n;
}

/**
 * Prompt tokens the fake providers report for a request body (parsed JSON).
 *
 * @example mockPromptTokens({ messages: [{ role: 'user', content: 'Say hello, mock!' }] }) // 4 (16 chars)
 */
export function mockPromptTokens(body: unknown): number {
  const req = asObject(body) ?? {};
  let chars = 0;
  for (const key of ['system', 'instructions', 'messages', 'input', 'prompt']) chars += countText(req[key]);
  return Math.max(1, Math.ceil(chars / MOCK_CHARS_PER_TOKEN));
}

/**
 * Completion tokens (= streamed chunks) the fake providers produce for a request body.
 *
 * @param chunksHeader the `x-mock-chunks` request header, which overrides the body
 * @example mockCompletionTokens({ max_tokens: 5 }) // 5
 */
export function mockCompletionTokens(body: unknown, chunksHeader?: string): number {
  if (chunksHeader !== undefined) {
    const n = Number.parseInt(chunksHeader, 10);
    if (Number.isFinite(n) && n >= 0) return Math.min(n, MAX_MOCK_CHUNKS);
  }
  const req = asObject(body) ?? {};
  for (const key of ['max_completion_tokens', 'max_output_tokens', 'max_tokens']) {
    const v = req[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 1)
      return Math.min(Math.floor(v), MAX_DEFAULT_COMPLETION);
  }
  return DEFAULT_COMPLETION_TOKENS;
}

/** Embedding inputs: a string or an array of strings (token arrays count one token per element). */
export function mockEmbeddingTokens(body: unknown): number {
  const input = asObject(body)?.input;
  const items = Array.isArray(input) ? input : [input];
  let tokens = 0;
  for (const item of items) {
    if (typeof item === 'string') tokens += Math.max(1, Math.ceil(item.length / MOCK_CHARS_PER_TOKEN));
    else if (Array.isArray(item)) tokens += item.length;
    else if (typeof item === 'number') tokens += 1;
  }
  return Math.max(1, tokens);
}
