/**
 * The usage parsers of the Anthropic, Gemini, Bedrock and Ollama dialects. The published ESM build loads
 * this module on demand, from its own file (`dialect-usage.mjs`, sdk/scripts/build.ts), when a call to
 * one of those providers begins (`on-demand-usage.ts`); CommonJS carries the parsers inline.
 */
export { anthropicUsage } from '../../core/usage/anthropic';
export { bedrockUsage } from '../../core/usage/bedrock';
export { geminiUsage } from '../../core/usage/gemini';
export { ollamaUsage } from '../../core/usage/ollama';
