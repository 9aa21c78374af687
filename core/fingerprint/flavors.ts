/**
 * Which parts of a request body make up its fingerprint, per API flavor.
 *
 * Only what the model is asked (model, prompt, conversation, tools) counts. Sampling parameters
 * (`temperature`, `top_p`, `max_tokens`, `seed`, …), `stream`, `stream_options`, `user`, `metadata`
 * and every other top-level member are left out, so an agent that retries the same prompt with a
 * different temperature is still recognized as repeating itself (guardrail layer 2).
 * @module
 */

/** The request-body dialects the fingerprint understands. */
export type RequestFlavor = 'openai' | 'anthropic' | 'gemini' | 'ollama';

/** Every flavor, for iteration and validation. */
export const REQUEST_FLAVORS: readonly RequestFlavor[] = ['openai', 'anthropic', 'gemini', 'ollama'];

/** One member of the canonical form and the body members (aliases, first present wins) it comes from. */
export interface FingerprintField {
  /** Name in the canonical form. */
  readonly name: string;
  /** Top-level body members it is read from, in order of preference. */
  readonly from: readonly string[];
}

/** How one flavor's body is reduced to its canonical form. */
export interface FlavorSpec {
  readonly flavor: RequestFlavor;
  /** Members copied into the canonical form (besides `flavor` and `model`). */
  readonly fields: readonly FingerprintField[];
  /** At least one of these canonical members must be present, or the body is unusable (null). */
  readonly content: readonly string[];
  /**
   * Where the model comes from: `body` reads the body's `model` member and falls back to
   * `options.model`; `options` uses `options.model` only (Gemini puts the model in the URL path).
   */
  readonly model: 'body' | 'options';
}

const field = (name: string, ...aliases: string[]): FingerprintField => ({ name, from: [name, ...aliases] });

/** The flavor table. Field names are the providers' own. */
export const FLAVOR_SPECS: Readonly<Record<RequestFlavor, FlavorSpec>> = {
  openai: {
    flavor: 'openai',
    // Chat Completions (messages, tools, legacy functions), Responses (input, instructions,
    // previous_response_id: the server-side conversation the input continues), legacy Completions
    // and Responses prompt templates (prompt).
    fields: [
      field('messages'),
      field('tools'),
      field('functions'),
      field('input'),
      field('instructions'),
      field('prompt'),
      field('previous_response_id'),
    ],
    content: ['messages', 'input', 'prompt'],
    model: 'body',
  },
  anthropic: {
    flavor: 'anthropic',
    fields: [field('system'), field('messages'), field('tools')],
    content: ['messages'],
    model: 'body',
  },
  gemini: {
    flavor: 'gemini',
    // The REST API accepts both camelCase and snake_case member names (proto3 JSON); both map to one name.
    fields: [
      field('contents'),
      field('systemInstruction', 'system_instruction'),
      field('tools'),
      field('cachedContent', 'cached_content'),
    ],
    content: ['contents'],
    model: 'options',
  },
  ollama: {
    flavor: 'ollama',
    // /api/chat (messages, tools) and /api/generate (prompt, system, images).
    fields: [field('messages'), field('prompt'), field('system'), field('tools'), field('images')],
    content: ['messages', 'prompt'],
    model: 'body',
  },
};

/**
 * Normalizes a model name given out of band (Gemini's URL path): a leading `models/` is dropped, so
 * `models/gemini-2.0-flash` and `gemini-2.0-flash` fingerprint alike.
 */
export function normalizeOptionModel(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

/**
 * The model named in a Gemini REST path, e.g. `/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse`
 * → `gemini-2.0-flash`; null when the path names none.
 *
 * @example geminiModelFromPath('/v1beta/models/gemini-2.5-pro:generateContent') // 'gemini-2.5-pro'
 */
export function geminiModelFromPath(path: string): string | null {
  const m = /\/models\/([^/:?#]+)/.exec(path);
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}
