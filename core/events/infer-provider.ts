/**
 * The provider of an ingest event that does not name one (spec 2.3 carries only `model`), from the
 * model's family. Only used to pick a price list; an unknown family stays `unknown` and is priced by
 * FALLBACK_ECONOMICS.
 */
const FAMILIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(gpt-|o\d|chatgpt-|text-embedding-|dall-e|whisper|tts-|davinci|babbage|ft:gpt|omni-)/i, 'openai'],
  [/^claude/i, 'anthropic'],
  [/^(gemini|models\/gemini|gemma)/i, 'gemini'],
  [/^(mistral|mixtral|codestral|ministral|pixtral|magistral|devstral)/i, 'mistral'],
  [/^deepseek/i, 'deepseek'],
  [/^grok/i, 'xai'],
  [/^(llama|meta-llama|qwen|phi)/i, 'llama'],
];

export function inferProvider(model: string): string {
  // `openai/gpt-4o`-style ids are OpenRouter's.
  if (/^[a-z0-9-]+\/[^/]+$/i.test(model) && !model.startsWith('models/')) return 'openrouter';
  for (const [pattern, provider] of FAMILIES) if (pattern.test(model)) return provider;
  return 'unknown';
}
