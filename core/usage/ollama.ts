/**
 * Open-weight (Llama-family) servers: Ollama's native API and OpenAI-compatible servers (vLLM, llama.cpp,
 * TGI, LM Studio, Ollama's own `/v1`).
 *
 * Ollama native (`/api/chat`, `/api/generate`, `/api/embed`): JSON, or NDJSON when streaming (the
 * default for chat and generate). Mapping: `prompt_eval_count` → inputTokens, `eval_count` → outputTokens;
 * in a stream only the final object (`"done": true`) carries them. Ollama reports no cache or reasoning
 * split (thinking tokens are part of `eval_count`).
 *
 * Which dialect a response speaks is read from the data: an object with `usage` is OpenAI-style; an SSE
 * stream is OpenAI-style, an NDJSON stream is Ollama's.
 */
import { asCount, asObject, asString, type JsonObject } from './json-fields';
import { jsonKey, readStringValue, tallyStringValues, valueIndex } from './json-scan';
import { makeUsage, providerError, usageResultOf } from './normalize';
import { openAIBodyUsage, OpenAIStreamHandler } from './openai';
import { framedUsageStream, StreamTally, type FrameHandler } from './stream';
import type { NormalizedUsage, UsageContext, UsageParser, UsageResult } from './types';

/** Token fields of an Ollama native response; undefined when it has no counts. */
export function readOllamaUsage(body: JsonObject): Partial<NormalizedUsage> | undefined {
  const input = asCount(body.prompt_eval_count);
  const output = asCount(body.eval_count);
  if (input === undefined && output === undefined) return undefined;
  return { inputTokens: input ?? 0, outputTokens: output ?? 0 };
}

function toUsage(body: JsonObject): NormalizedUsage | undefined {
  const fields = readOllamaUsage(body);
  return fields === undefined ? undefined : makeUsage({ ...fields, model: asString(body.model) ?? null });
}

const DONE = jsonKey('done');
const ERROR = jsonKey('error');
const MODEL = jsonKey('model');
/** Generated text in NDJSON objects: chat `message.content` / `message.thinking`, generate `response`. */
const TEXT_KEYS = ['content', 'response', 'thinking'].map(jsonKey);

/** NDJSON objects: content is counted without parsing; the final `done: true` object is parsed. */
class OllamaStreamHandler implements FrameHandler {
  constructor(readonly tally: StreamTally) {}

  frame(data: string): void {
    const done = valueIndex(data, DONE);
    if ((done !== -1 && data.startsWith('true', done)) || valueIndex(data, ERROR) !== -1) {
      const obj = this.tally.parseFrame(data);
      if (obj === undefined) return;
      const usage = toUsage(obj);
      if (usage !== undefined) this.tally.report(usage);
      const error = providerError(obj);
      if (error !== undefined) this.tally.fail(error);
    }
    tallyStringValues(data, TEXT_KEYS, this.tally.output);
    if (!this.tally.hasModel) this.tally.seen(readStringValue(data, MODEL));
  }
}

/** Ollama native responses, and OpenAI-compatible ones from any Llama-family server. */
export const ollamaUsage: UsageParser = {
  fromJson(body: unknown, ctx: UsageContext): UsageResult {
    // An object with `usage` is OpenAI-style (an OpenAI-compatible server), else Ollama's own.
    return usageResultOf(body, ctx, (obj) =>
      asObject(obj.usage) !== undefined ? openAIBodyUsage(obj) : toUsage(obj),
    );
  },
  stream(ctx: UsageContext) {
    return framedUsageStream(ctx, (framing) =>
      framing === 'ndjson'
        ? new OllamaStreamHandler(new StreamTally(ctx, 'ollama', 'llama'))
        : new OpenAIStreamHandler(new StreamTally(ctx, 'openai', 'llama'), (b) => openAIBodyUsage(b)),
    );
  },
};
