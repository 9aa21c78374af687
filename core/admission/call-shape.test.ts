import fc from 'fast-check';
import { openaiRequestShape } from '../providers/request-shape/openai';
import { anthropicRequestShape } from '../providers/request-shape/anthropic';
import { geminiRequestShape } from '../providers/request-shape/gemini';
import { binaryChars, callShapeOf, MAX_PARSE_BYTES } from './call-shape';

const CHAT = '/v1/chat/completions';

describe('callShapeOf', () => {
  it('refuses the two-model body of issue 19 (the relay read the first model, the provider the last)', () => {
    const body =
      '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],' +
      '"max_completion_tokens":100000,"model":"o1-pro"}';
    const read = callShapeOf(Buffer.from(body), CHAT, openaiRequestShape);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.message).toContain('"model"');
  });

  it('refuses a duplicate hidden behind an escape, and a body that only starts like JSON', () => {
    const escaped = callShapeOf(Buffer.from('{"n":1,"\\u006e":128}'), CHAT, openaiRequestShape);
    expect(!escaped.ok && escaped.message).toContain('"n"');
    const broken = callShapeOf(Buffer.from('{"model":"gpt-4o",}'), CHAT, openaiRequestShape);
    expect(!broken.ok && broken.message).toMatch(/not valid JSON/);
  });

  it('reads model, bound, choices, tier, server context and deferral as the provider would', () => {
    const read = callShapeOf(
      Buffer.from(
        JSON.stringify({
          model: 'gpt-5',
          max_output_tokens: 700,
          n: 2,
          best_of: 3,
          service_tier: 'priority',
          previous_response_id: 'resp_1',
          background: true,
          input: 'go',
        }),
      ),
      '/v1/responses',
      openaiRequestShape,
    );
    expect(read).toMatchObject({
      ok: true,
      shape: {
        kind: 'json',
        model: 'gpt-5',
        outputTokens: 700,
        choices: 3,
        serviceTier: 'priority',
        serverContext: true,
        deferred: 'background',
      },
    });
  });

  it('reads the top level of a body over the parse bound without parsing it whole', () => {
    const image = 'A'.repeat(MAX_PARSE_BYTES + 10);
    const body = JSON.stringify({
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', data: image } }] }],
      max_tokens: 64_000,
      model: 'claude-opus-4-5',
    });
    const read = callShapeOf(Buffer.from(body), '/v1/messages', anthropicRequestShape);
    expect(read).toMatchObject({ ok: true, shape: { model: 'claude-opus-4-5', outputTokens: 64_000 } });
    expect(read.ok && read.shape.parsed()).toBeUndefined();
    const dup = callShapeOf(
      Buffer.from(body.replace(/}$/, ',"model":"claude-3-haiku"}')),
      '/v1/messages',
      anthropicRequestShape,
    );
    expect(dup.ok).toBe(false);
  });

  it('takes Gemini’s model from the path and reads candidateCount and cachedContent', () => {
    const read = callShapeOf(
      Buffer.from(
        JSON.stringify({ cachedContent: 'cachedContents/abc', generationConfig: { candidateCount: 4 } }),
      ),
      '/v1beta/models/gemini-2.5-pro:generateContent',
      geminiRequestShape,
    );
    expect(read).toMatchObject({
      ok: true,
      shape: { model: 'gemini-2.5-pro', choices: 4, serverContext: true },
    });
  });

  it('parses the whole body once, on first use, and counts its binary parts', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } }] },
      ],
    };
    const read = callShapeOf(Buffer.from(JSON.stringify(body)), CHAT, openaiRequestShape);
    if (!read.ok) throw new Error(read.message);
    expect(read.shape.parsed()).toEqual(body);
    expect(read.shape.parsed()).toBe(read.shape.parsed());
    expect(read.shape.binaryChars()).toBe(4);
  });

  it('reads past a UTF-8 byte order mark, as lenient provider parsers do', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"model":"o1-pro","n":2}')]);
    expect(callShapeOf(body, CHAT, openaiRequestShape)).toMatchObject({
      ok: true,
      shape: { kind: 'json', model: 'o1-pro', choices: 2 },
    });
  });

  it('reads a body that is not a JSON object for its path only', () => {
    const read = callShapeOf(Buffer.from('--boundary\r\n'), '/v1/audio/transcriptions', openaiRequestShape);
    expect(read).toMatchObject({ ok: true, shape: { kind: 'other', model: null } });
    expect(read.ok && read.shape.parsed()).toBeUndefined();
  });
});

describe('binaryChars', () => {
  it('counts base64 parts and data URLs, not text', () => {
    const body = {
      messages: [
        { role: 'user', content: 'a long text that is not binary at all' },
        { content: [{ type: 'document', source: { type: 'base64', data: 'QUJD'.repeat(10) } }] },
        { content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      ],
    };
    expect(binaryChars(body)).toBe(40 + 'data:image/png;base64,AAAA'.length);
  });
});

describe('callShapeOf members (property)', () => {
  it('gives every top-level member the value JSON.parse gives it, for bodies below and above the parse bound', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        fc.boolean(),
        (obj, large) => {
          const body = large
            ? JSON.stringify({ ...obj, __pad: 'x'.repeat(MAX_PARSE_BYTES) }).replace(/^\{/, '{ ')
            : JSON.stringify(obj);
          const seen = new Map<string, unknown>();
          const reader = (view: { member(name: string): unknown }) => {
            for (const k of Object.keys(obj)) seen.set(k, view.member(k));
            return openaiRequestShape({ member: view.member, body: Buffer.from(body), endpoint: CHAT });
          };
          const read = callShapeOf(Buffer.from(body), CHAT, reader);
          expect(read.ok).toBe(true);
          const parsed = JSON.parse(body) as Record<string, unknown>;
          for (const k of Object.keys(obj)) expect(seen.get(k)).toEqual(parsed[k]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
