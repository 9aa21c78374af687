import fc from 'fast-check';
import { canonicalRequest } from './canonical-request';
import { REQUEST_FLAVORS, geminiModelFromPath, type RequestFlavor } from './flavors';

describe('canonicalRequest: per-flavor fixtures', () => {
  it.each<[string, RequestFlavor, unknown, { model?: string } | undefined, string]>([
    [
      'OpenAI chat completions',
      'openai',
      {
        model: 'gpt-4o-mini',
        temperature: 0.7,
        top_p: 1,
        max_tokens: 256,
        seed: 7,
        stream: true,
        stream_options: { include_usage: true },
        user: 'u-1',
        metadata: { run: 'x' },
        tool_choice: 'auto',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      },
      undefined,
      '{"flavor":"openai","messages":[{"content":"Be brief.","role":"system"},{"content":"Hi","role":"user"}],' +
        '"model":"gpt-4o-mini","tools":[{"function":{"name":"f","parameters":{"type":"object"}},"type":"function"}]}',
    ],
    [
      'OpenAI Responses API',
      'openai',
      {
        model: 'gpt-5',
        instructions: 'You are terse.',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
        reasoning: { effort: 'low' },
        store: false,
        previous_response_id: 'resp_1',
      },
      undefined,
      '{"flavor":"openai","input":[{"content":[{"text":"Hi","type":"input_text"}],"role":"user"}],' +
        '"instructions":"You are terse.","model":"gpt-5","previous_response_id":"resp_1"}',
    ],
    [
      'OpenAI legacy functions',
      'openai',
      { model: 'gpt-3.5-turbo', messages: [], functions: [{ name: 'g' }], function_call: 'auto' },
      undefined,
      '{"flavor":"openai","functions":[{"name":"g"}],"messages":[],"model":"gpt-3.5-turbo"}',
    ],
    [
      'OpenAI on Azure (model in the URL)',
      'openai',
      { messages: [{ role: 'user', content: 'Hi' }] },
      { model: 'my-deployment' },
      '{"flavor":"openai","messages":[{"content":"Hi","role":"user"}],"model":"my-deployment"}',
    ],
    [
      'Anthropic messages',
      'anthropic',
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        temperature: 0,
        stream: true,
        metadata: { user_id: 'u' },
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [{ name: 't', input_schema: { type: 'object' } }],
      },
      undefined,
      '{"flavor":"anthropic","messages":[{"content":"Hi","role":"user"}],"model":"claude-sonnet-4-5",' +
        '"system":[{"cache_control":{"type":"ephemeral"},"text":"Be brief.","type":"text"}],' +
        '"tools":[{"input_schema":{"type":"object"},"name":"t"}]}',
    ],
    [
      'Gemini generateContent',
      'gemini',
      {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        generationConfig: { temperature: 0.1, maxOutputTokens: 100 },
        safetySettings: [],
      },
      { model: 'models/gemini-2.5-flash' },
      '{"contents":[{"parts":[{"text":"Hi"}],"role":"user"}],"flavor":"gemini","model":"gemini-2.5-flash",' +
        '"systemInstruction":{"parts":[{"text":"Be brief."}]}}',
    ],
    [
      'Gemini with snake_case members',
      'gemini',
      {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        system_instruction: { parts: [{ text: 'Be brief.' }] },
      },
      { model: 'gemini-2.5-flash' },
      '{"contents":[{"parts":[{"text":"Hi"}],"role":"user"}],"flavor":"gemini","model":"gemini-2.5-flash",' +
        '"systemInstruction":{"parts":[{"text":"Be brief."}]}}',
    ],
    [
      'Ollama chat',
      'ollama',
      {
        model: 'llama3.1',
        messages: [{ role: 'user', content: 'Hi' }],
        options: { temperature: 0.2, seed: 1 },
        stream: false,
        keep_alive: '5m',
      },
      undefined,
      '{"flavor":"ollama","messages":[{"content":"Hi","role":"user"}],"model":"llama3.1"}',
    ],
    [
      'Ollama generate',
      'ollama',
      { model: 'llama3.1', prompt: 'Why is the sky blue?', system: 'Be brief.', options: { num_ctx: 4096 } },
      undefined,
      '{"flavor":"ollama","model":"llama3.1","prompt":"Why is the sky blue?","system":"Be brief."}',
    ],
  ])('%s', (_name, flavor, body, opts, expected) => {
    expect(canonicalRequest(flavor, body, opts)).toBe(expected);
    expect(canonicalRequest(flavor, JSON.stringify(body, null, 2), opts)).toBe(expected);
    expect(canonicalRequest(flavor, new TextEncoder().encode(JSON.stringify(body)), opts)).toBe(expected);
  });

  it('treats a null member as absent', () => {
    const a = canonicalRequest('openai', { model: 'm', messages: [], tools: null });
    expect(a).toBe(canonicalRequest('openai', { model: 'm', messages: [] }));
  });

  it('prefers the body model over options.model, except for Gemini', () => {
    expect(canonicalRequest('openai', { model: 'a', messages: [] }, { model: 'b' })).toContain('"model":"a"');
    expect(canonicalRequest('gemini', { model: 'a', contents: [] }, { model: 'b' })).toContain('"model":"b"');
    expect(canonicalRequest('gemini', { contents: [] })).toBe('{"contents":[],"flavor":"gemini"}');
  });

  it('reads the Gemini model from a REST path', () => {
    expect(geminiModelFromPath('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse')).toBe(
      'gemini-2.0-flash',
    );
    expect(geminiModelFromPath('/v1/models/gemini-pro:generateContent')).toBe('gemini-pro');
    expect(geminiModelFromPath('/v1beta/cachedContents')).toBeNull();
  });
});

describe('canonicalRequest: unusable bodies give null', () => {
  it.each<[string, unknown]>([
    ['not JSON', 'model=gpt-4o&messages=hi'],
    ['truncated JSON', '{"model":"gpt-4o","messages":[{"role":"user"'],
    ['a JSON array', '[{"model":"gpt-4o"}]'],
    ['a JSON string', '"hello"'],
    ['no content member', { model: 'gpt-4o', temperature: 1 }],
    ['empty string', ''],
    ['invalid UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a Map', new Map([['messages', []]])],
    ['a URLSearchParams', new URLSearchParams('messages=1')],
    [
      'a cyclic object',
      (() => {
        const o: Record<string, unknown> = { model: 'm', messages: [] };
        (o.messages as unknown[]).push(o);
        return o;
      })(),
    ],
    ['a BigInt inside', { model: 'm', messages: [{ n: 1n }] }],
    [
      'a throwing getter',
      {
        model: 'm',
        get messages(): never {
          throw new Error('boom');
        },
      },
    ],
  ])('%s', (_name, body) => {
    for (const flavor of REQUEST_FLAVORS) expect(canonicalRequest(flavor, body)).toBeNull();
  });

  it('never throws, whatever it is given', () => {
    const bodies = fc.oneof(
      fc.anything({
        withBoxedValues: true,
        withMap: true,
        withSet: true,
        withTypedArray: true,
        withSparseArray: true,
      }),
      fc.string({ unit: 'binary' }),
      fc.json(),
      fc.uint8Array(),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...REQUEST_FLAVORS, 'bogus' as RequestFlavor, 'constructor' as RequestFlavor),
        bodies,
        (flavor, body) => {
          const out = canonicalRequest(flavor, body);
          expect(out === null || typeof out === 'string').toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

/** A copy of a JSON value whose objects list their keys in a random order. */
function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random)]));
}

const json = fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' });
const chatBody = fc.record({
  model: fc.string({ minLength: 1 }),
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: json })),
  tools: fc.option(fc.array(json), { nil: undefined }),
});
const excluded = fc.record(
  {
    temperature: fc.double({ noNaN: true, noDefaultInfinity: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    max_tokens: fc.nat(),
    seed: fc.integer(),
    stream: fc.boolean(),
    stream_options: json,
    user: fc.string(),
    metadata: json,
  },
  { requiredKeys: [] },
);

describe('canonicalRequest: properties', () => {
  it('ignores key order, whitespace and excluded fields', () => {
    fc.assert(
      fc.property(chatBody, excluded, fc.nat(), (body, extra, seed) => {
        let s = seed;
        const random = (): number => ((s = (s * 16807) % 2147483647) + 1) / 2147483648;
        const noisy = shuffleKeys({ ...extra, ...body }, random);
        const expected = canonicalRequest('openai', body);
        expect(expected).not.toBeNull();
        expect(canonicalRequest('openai', noisy)).toBe(expected);
        expect(canonicalRequest('openai', JSON.stringify(noisy, null, 1))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('changes when model, messages or tools change', () => {
    fc.assert(
      fc.property(chatBody, chatBody, (a, b) => {
        const sameModel = a.model === b.model;
        const sameMessages =
          JSON.stringify(canonicalRequest('openai', { messages: a.messages })) ===
          JSON.stringify(canonicalRequest('openai', { messages: b.messages }));
        const sameTools =
          canonicalRequest('openai', { messages: [], tools: a.tools ?? null }) ===
          canonicalRequest('openai', { messages: [], tools: b.tools ?? null });
        const same = canonicalRequest('openai', a) === canonicalRequest('openai', b);
        expect(same).toBe(sameModel && sameMessages && sameTools);
      }),
      { numRuns: 300 },
    );
  });

  it('changes when one character of one message changes', () => {
    fc.assert(
      fc.property(chatBody, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (body, at, ch) => {
        fc.pre(body.messages.length > 0);
        const i = at % body.messages.length;
        const before = JSON.stringify(body.messages[i]!.content);
        const text = typeof body.messages[i]!.content === 'string' ? body.messages[i]!.content : before;
        const changed = text + ch;
        const mutated = {
          ...body,
          messages: body.messages.map((m, j) => (j === i ? { ...m, content: changed } : m)),
        };
        expect(canonicalRequest('openai', mutated)).not.toBe(canonicalRequest('openai', body));
      }),
      { numRuns: 300 },
    );
  });
});
