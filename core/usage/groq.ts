/**
 * Groq usage: OpenAI's format, except that streams report usage in `x_groq.usage` on the last chunk
 * (with Groq's timing fields), and in a standard top-level `usage` too when
 * `stream_options.include_usage` is set. The top-level object wins when both are present.
 */
import { asObject, field } from './json-fields';
import { createOpenAIUsageParser } from './openai';
import type { UsageParser } from './types';

/** Groq (api.groq.com/openai/v1). */
export const groqUsage: UsageParser = createOpenAIUsageParser({
  findUsage: (body) => asObject(body.usage) ?? asObject(field(body, 'x_groq', 'usage')),
  family: 'other',
});
