/**
 * An exact {@link TokenCounter} for OpenAI's o200k_base encoding (GPT-4o, GPT-4.1, GPT-5, o-series),
 * for server-side estimates (the relay). Not imported by anything the SDK bundles: gpt-tokenizer's
 * rank table is about 2 MB.
 *
 * Special-token text such as `<|endoftext|>` in a prompt is counted as ordinary text (the API does the
 * same for user content), instead of throwing.
 *
 * @example
 * const usage = createUsageStream('openai', { requestBody, tokenCounter: countOpenAITokens });
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { TokenCounter } from './types';

const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

/** Number of o200k_base tokens in `text`. */
export const countOpenAITokens: TokenCounter = (text) => countTokens(text, ORDINARY_TEXT);
