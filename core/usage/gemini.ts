/**
 * Google Gemini API (generativelanguage.googleapis.com) usage: `generateContent` JSON,
 * `streamGenerateContent?alt=sse` SSE, and `streamGenerateContent` without `alt=sse` (one JSON array).
 *
 * Mapping of `usageMetadata`:
 * - inputTokens = `promptTokenCount` (already includes `cachedContentTokenCount`) + `toolUsePromptTokenCount`
 *   (tool results fed back to the model, billed as input).
 * - cacheReadTokens = `cachedContentTokenCount`.
 * - outputTokens = `candidatesTokenCount` + `thoughtsTokenCount`: thinking is billed as output ON TOP of
 *   the candidates; reasoningTokens = `thoughtsTokenCount`.
 * - model = `modelVersion`, else the `/models/{model}:` segment of the URL.
 * - serviceTier = `usageMetadata.serviceTier` when present.
 * - Streams repeat `usageMetadata` in every chunk, cumulative: the last one with token counts wins.
 *
 * The OpenAI-compatible endpoint (`/v1beta/openai/…`) answers in OpenAI's format and is read as such.
 */
import { asCount, asObject, asString, type JsonObject } from './json-fields';
import { fail, makeUsage, NOT_AN_OBJECT, ok, providerError, withRequestFallbacks } from './normalize';
import { createOpenAIUsageParser } from './openai';
import { framedUsageStream, StreamTally, type FrameHandler } from './stream';
import type { NormalizedUsage, UsageContext, UsageParser, UsageResult, UsageStream } from './types';

/** Token fields of a Gemini `usageMetadata`; undefined when it has no token counts (e.g. only `trafficType`). */
export function readGeminiUsage(meta: JsonObject): Partial<NormalizedUsage> | undefined {
  const prompt = asCount(meta.promptTokenCount);
  const candidates = asCount(meta.candidatesTokenCount);
  const thoughts = asCount(meta.thoughtsTokenCount);
  const total = asCount(meta.totalTokenCount);
  if (prompt === undefined && candidates === undefined && thoughts === undefined && total === undefined) {
    return undefined;
  }
  return {
    inputTokens: (prompt ?? 0) + (asCount(meta.toolUsePromptTokenCount) ?? 0),
    cacheReadTokens: asCount(meta.cachedContentTokenCount) ?? 0,
    outputTokens: (candidates ?? 0) + (thoughts ?? 0),
    reasoningTokens: thoughts ?? 0,
    serviceTier: asString(meta.serviceTier) ?? null,
  };
}

function toUsage(response: JsonObject): NormalizedUsage | undefined {
  const meta = asObject(response.usageMetadata);
  const fields = meta === undefined ? undefined : readGeminiUsage(meta);
  return fields === undefined
    ? undefined
    : makeUsage({ ...fields, model: asString(response.modelVersion) ?? null });
}

/** SSE chunks: every one is parsed (each carries cumulative `usageMetadata`). */
class GeminiStreamHandler implements FrameHandler {
  constructor(readonly tally: StreamTally) {}

  frame(data: string): void {
    const chunk = this.tally.parseFrame(data);
    if (chunk === undefined) return;
    this.tally.seen(asString(chunk.modelVersion));
    const usage = toUsage(chunk);
    if (usage !== undefined) this.tally.report(usage);
    const error = providerError(chunk);
    if (error !== undefined) this.tally.fail(error);
    countCandidateText(chunk, this.tally);
  }
}

/** Adds the generated text of a chunk's candidates (answer and thought parts, function-call args). */
function countCandidateText(chunk: JsonObject, tally: StreamTally): void {
  const candidates = chunk.candidates;
  if (!Array.isArray(candidates)) return;
  for (const candidate of candidates) {
    const parts = asObject(asObject(candidate)?.content)?.parts;
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const p = asObject(part);
      if (p === undefined) continue;
      if (typeof p.text === 'string') {
        if (tally.output.wantsText) tally.output.addText(p.text);
        else tally.output.addChars(p.text.length);
      }
      const call = asObject(p.functionCall);
      if (call !== undefined) tally.output.addText(JSON.stringify(call.args ?? {}));
    }
  }
}

const compatible = createOpenAIUsageParser({ family: 'gemini' });

/** True for the OpenAI-compatible endpoint (`/v1beta/openai/chat/completions`). */
function isOpenAICompatible(ctx: UsageContext): boolean {
  return ctx.url !== undefined && ctx.url.includes('/openai/');
}

/** Gemini API (Google AI Studio). */
export const geminiUsage: UsageParser = {
  fromJson(body: unknown, ctx: UsageContext): UsageResult {
    if (isOpenAICompatible(ctx)) return compatible.fromJson(body, ctx);
    // streamGenerateContent without alt=sse: a JSON array of chunks, cumulative usage, last wins
    const chunks = Array.isArray(body) ? body : [body];
    let usage: NormalizedUsage | undefined;
    let model: string | null = null;
    let error: string | undefined;
    for (const item of chunks) {
      const chunk = asObject(item);
      if (chunk === undefined) continue;
      model = asString(chunk.modelVersion) ?? model;
      usage = toUsage(chunk) ?? usage;
      error ??= providerError(chunk);
    }
    if (usage !== undefined) return ok(withRequestFallbacks(usage, ctx, model));
    if (error !== undefined) return fail(error);
    return fail(
      asObject(body) === undefined && !Array.isArray(body) ? NOT_AN_OBJECT : 'no usage in response',
    );
  },
  stream(ctx: UsageContext): UsageStream {
    if (isOpenAICompatible(ctx)) return compatible.stream(ctx);
    return framedUsageStream(ctx, () => new GeminiStreamHandler(new StreamTally(ctx, 'gemini', 'gemini')));
  },
};
