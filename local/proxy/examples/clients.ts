/**
 * How an application points the official clients at the Spendguard proxy. Included in docs/proxy.md
 * and exercised by local-proxy.test.ts, so the documented snippets compile and work.
 *
 * `proxyUrl` is the CloudFront URL in AWS, or `http://127.0.0.1:8788` locally.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

/** OpenAI: the provider path keeps its `/v1`; the OpenAI key still goes in `apiKey`. */
export function openaiViaSpendguard(proxyUrl: string, spendguardKey: string, openaiKey: string): OpenAI {
  return new OpenAI({
    apiKey: openaiKey,
    baseURL: `${proxyUrl}/openai/v1`,
    defaultHeaders: { 'Service-API-Key': spendguardKey },
  });
}

/** Anthropic: the SDK appends `/v1/messages` itself. */
export function anthropicViaSpendguard(
  proxyUrl: string,
  spendguardKey: string,
  anthropicKey: string,
): Anthropic {
  return new Anthropic({
    apiKey: anthropicKey,
    baseURL: `${proxyUrl}/anthropic`,
    defaultHeaders: { 'Service-API-Key': spendguardKey },
  });
}

/** OpenRouter speaks OpenAI's format under `/api/v1`: the OpenAI client with another base URL. */
export function openrouterViaSpendguard(
  proxyUrl: string,
  spendguardKey: string,
  openrouterKey: string,
): OpenAI {
  return new OpenAI({
    apiKey: openrouterKey,
    baseURL: `${proxyUrl}/openrouter/api/v1`,
    defaultHeaders: { 'Service-API-Key': spendguardKey },
  });
}
