/**
 * Token estimates for streams that end without a usage frame (DESIGN decision 8): the prompt from the
 * request body, the completion from the streamed text. With a {@link TokenCounter} the text is counted
 * exactly (per piece); without one, characters are divided by the family's ratio.
 */
import type { RequestFlavor } from '../providers/types';
import { asObject } from './json-fields';
import type { TokenCounter } from './types';

/** Tokenizer families with distinct characters-per-token ratios. */
export type TokenizerFamily = 'openai' | 'anthropic' | 'gemini' | 'llama' | 'other';

/**
 * Characters of (mostly English) text per token, used when no {@link TokenCounter} is given.
 * - `openai` 4: OpenAI's rule of thumb ("one token is about 4 characters"), o200k_base.
 * - `anthropic` 3.5: Anthropic's guidance (about 3.5 English characters per token); Claude's tokenizer is
 *   less dense than o200k, so a lower ratio (more tokens) keeps the estimate from under-counting.
 * - `gemini` 4: Google's guidance ("a token is about 4 characters" for Gemini models).
 * - `llama` 3.8: Llama 3's 128k tiktoken-style vocabulary is slightly less dense than o200k.
 * - `other` 4: the usual chars/4 rule.
 *
 * Code, JSON and non-Latin scripts have fewer characters per token, so estimates can be low for them;
 * they are marked `estimated: true` and priced as such.
 */
export const CHARS_PER_TOKEN: Readonly<Record<TokenizerFamily, number>> = Object.freeze({
  openai: 4,
  anthropic: 3.5,
  gemini: 4,
  llama: 3.8,
  other: 4,
});

/** Tokens added per chat message for role and separators (OpenAI's published chat-format overhead). */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Tokens that prime the assistant's reply, added once when the request has messages. */
export const REPLY_PRIMING_TOKENS = 3;

/**
 * The tokenizer family of a model name, else `fallback`.
 *
 * @example familyOfModel('anthropic/claude-sonnet-4.5', 'openai') // 'anthropic' (an OpenRouter id)
 */
export function familyOfModel(model: string | null, fallback: TokenizerFamily): TokenizerFamily {
  if (model === null) return fallback;
  const m = model.toLowerCase();
  if (m.includes('claude')) return 'anthropic';
  if (m.includes('gemini') || m.includes('gemma')) return 'gemini';
  if (m.includes('llama')) return 'llama';
  if (/(?:^|\/)(?:gpt|chatgpt|o\d|text-embedding|codex)/.test(m)) return 'openai';
  return fallback;
}

/** `ceil(chars / CHARS_PER_TOKEN[family])`. */
export function tokensFromChars(chars: number, family: TokenizerFamily): number {
  return chars <= 0 ? 0 : Math.ceil(chars / CHARS_PER_TOKEN[family]);
}

/**
 * A running token count: exact pieces through the counter, the rest as characters for the ratio.
 * Holds two numbers, never the text.
 */
export class TokenTally {
  #chars = 0;
  #tokens = 0;
  /** True when callers should pass text (there is a counter); otherwise a character count is enough. */
  readonly wantsText: boolean;

  readonly #counter: TokenCounter | undefined;

  constructor(counter: TokenCounter | undefined) {
    this.#counter = counter;
    this.wantsText = counter !== undefined;
  }

  /** Counts a piece of text (with the counter when there is one and it behaves). */
  addText(text: string): void {
    if (this.#counter !== undefined) {
      try {
        const n = this.#counter(text);
        if (Number.isFinite(n) && n >= 0) {
          this.#tokens += n;
          return;
        }
      } catch {
        // a faulty counter falls back to the ratio for this piece
      }
    }
    this.#chars += text.length;
  }

  /** Counts `n` characters of text by ratio. */
  addChars(n: number): void {
    this.#chars += n;
  }

  /** Counted tokens plus the characters converted with the family's ratio. */
  total(family: TokenizerFamily): number {
    return this.#tokens + tokensFromChars(this.#chars, family);
  }
}

/** Top-level request fields that carry prompt text, per request flavor. */
const PROMPT_FIELDS: Readonly<Record<RequestFlavor, readonly string[]>> = {
  openai: ['instructions', 'messages', 'input', 'prompt'],
  anthropic: ['system', 'messages'],
  gemini: ['systemInstruction', 'system_instruction', 'contents'],
  ollama: ['system', 'messages', 'prompt'],
};

/** Top-level request fields that hold conversation turns (each adds {@link MESSAGE_OVERHEAD_TOKENS}). */
const TURN_FIELDS = ['messages', 'contents', 'input'] as const;

/** Tool definitions: counted as their JSON text. */
const TOOL_FIELDS = ['tools', 'functions'] as const;

/**
 * Fields whose strings are not prompt text: binary payloads (images, audio, files: not counted, see
 * docs/usage.md), opaque signatures, and short structural labels covered by the per-message overhead.
 */
const NOT_TEXT = new Set([
  'image_url',
  'input_audio',
  'inline_data',
  'inlineData',
  'file_data',
  'fileData',
  'source',
  'images',
  'image',
  'file',
  'signature',
  'thoughtSignature',
  'encrypted_content',
  'cache_control',
  'role',
  'type',
  'id',
  'tool_call_id',
  'tool_use_id',
]);

const MAX_DEPTH = 32;

/**
 * Estimated prompt tokens of a request body: its text (messages, system prompt, instructions, input), its
 * tool definitions as JSON, and the per-message overhead.
 *
 * @example
 * // 2 messages of 40 characters each, no counter, OpenAI family:
 * // ceil(80 / 4) + 2 × 3 + 3 = 29
 * estimateRequestTokens('openai', { messages: [m1, m2] }, 'openai', undefined); // 29
 */
export function estimateRequestTokens(
  flavor: RequestFlavor,
  request: unknown,
  family: TokenizerFamily,
  counter: TokenCounter | undefined,
): number {
  const body = asObject(request);
  if (body === undefined) return 0;
  const tally = new TokenTally(counter);
  for (const name of PROMPT_FIELDS[flavor]) collectText(body[name], tally, 0);
  for (const name of TOOL_FIELDS) {
    const tools = body[name];
    if (tools !== undefined && tools !== null) tally.addText(safeStringify(tools));
  }
  return tally.total(family) + framingTokens(body);
}

/**
 * The chat framing {@link estimateRequestTokens} adds: {@link MESSAGE_OVERHEAD_TOKENS} per conversation
 * turn and, when there is one, {@link REPLY_PRIMING_TOKENS}.
 */
export function framingTokens(request: unknown): number {
  const body = asObject(request);
  if (body === undefined) return 0;
  let turns = 0;
  for (const name of TURN_FIELDS) {
    const list = body[name];
    if (Array.isArray(list)) turns += list.filter((t) => asObject(t) !== undefined).length;
  }
  return turns === 0 ? 0 : turns * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;
}

function collectText(value: unknown, tally: TokenTally, depth: number): void {
  if (typeof value === 'string') {
    if (value.length > 0) tally.addText(value);
    return;
  }
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collectText(item, tally, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (NOT_TEXT.has(key)) continue;
    if (
      typeof item === 'object' &&
      item !== null &&
      (key === 'input' || key === 'args' || key === 'arguments')
    ) {
      // tool-call arguments given as objects (Anthropic tool_use.input, Gemini functionCall.args)
      tally.addText(safeStringify(item));
      continue;
    }
    collectText(item, tally, depth + 1);
  }
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
