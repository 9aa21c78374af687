import { formatZodIssues } from './issues';
import fc from 'fast-check';
import { ingestBatchOf, ingestRequestSchema, ingestResponseSchema } from './ingest';

/** The sample of spec 2.3 / 4.1. */
const sample = {
  apiKey: 'abn_k3v9x0q2m7za_6JpQ2mX9vT4rL8sW1yB3nC5dF7gH0jK2lM4pR6tV8xZ',
  events: [
    {
      model: 'gpt-4o',
      usage: { prompt_tokens: 1200, completion_tokens: 350 },
      timestamp: '2026-04-09T12:00:00Z',
      eventId: 'evt_01HZX3',
      featureId: 'summarize',
    },
  ],
};

const issuesOf = (input: unknown) => {
  const r = ingestRequestSchema.safeParse(input);
  return r.success ? [] : formatZodIssues(r.error);
};

describe('ingestRequestSchema', () => {
  it('accepts the spec sample', () => {
    expect(ingestRequestSchema.parse(sample)).toEqual(sample);
  });

  it('needs only model and the two token counts per event', () => {
    const minimal = {
      apiKey: sample.apiKey,
      events: [{ model: 'claude-haiku-4-5', usage: { prompt_tokens: 0, completion_tokens: 0 } }],
    };
    expect(ingestRequestSchema.parse(minimal)).toEqual(minimal);
  });

  it('takes an OpenAI usage object as it is, keeping the known counts', () => {
    const usage = {
      prompt_tokens: 19,
      completion_tokens: 10,
      total_tokens: 29,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    const parsed = ingestRequestSchema.parse({ ...sample, events: [{ model: 'gpt-4o', usage }] });
    expect(parsed.events[0]!.usage).toEqual({ prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 });
  });

  it('drops unknown fields, dollar amounts and content included', () => {
    const parsed = ingestRequestSchema.parse({
      ...sample,
      extra: true,
      events: [{ ...sample.events[0], costUsd: 1.2, prompt: 'hello', completion: 'hi' }],
    });
    expect(parsed).toEqual(sample);
  });

  it.each<[string, unknown, Array<{ path: string; message: RegExp }>]>([
    ['no events', { apiKey: sample.apiKey, events: [] }, [{ path: 'events', message: /at least one/ }]],
    [
      'no model',
      { ...sample, events: [{ usage: { prompt_tokens: 1, completion_tokens: 1 } }] },
      [{ path: 'events[0].model', message: /required/ }],
    ],
    ['no usage', { ...sample, events: [{ model: 'm' }] }, [{ path: 'events[0].usage', message: /required/ }]],
    [
      'Anthropic usage names',
      { ...sample, events: [{ model: 'm', usage: { input_tokens: 1, output_tokens: 2 } }] },
      [
        { path: 'events[0].usage.prompt_tokens', message: /required/ },
        { path: 'events[0].usage.completion_tokens', message: /required/ },
      ],
    ],
    [
      'a negative count in the fourth event',
      {
        ...sample,
        events: [
          ...Array(3).fill(sample.events[0]),
          { model: 'm', usage: { prompt_tokens: -1, completion_tokens: 0 } },
        ],
      },
      [{ path: 'events[3].usage.prompt_tokens', message: /negative/ }],
    ],
    [
      'a bad event id',
      { ...sample, events: [{ ...sample.events[0], eventId: '123' }] },
      [{ path: 'events[0].eventId', message: /evt_/ }],
    ],
    ['a key without abn_', { ...sample, apiKey: 'sk-123' }, [{ path: 'apiKey', message: /abn_/ }]],
    ['no key', { events: sample.events }, [{ path: 'apiKey', message: /required/ }]],
    ['not an object', [sample], [{ path: '', message: /expected object/ }]],
  ])('rejects %s with what and where', (_name, input, expected) => {
    expect(issuesOf(input)).toEqual(
      expected.map((e) => ({ path: e.path, message: expect.stringMatching(e.message) as unknown })),
    );
  });

  it('gives the problems shown in docs/schemas.md', () => {
    const ok = sample.events[0]!;
    const events: unknown[] = Array.from({ length: 8 }, () => ok);
    events[3] = { ...ok, usage: { prompt_tokens: -1, completion_tokens: 0 } };
    events[7] = { usage: ok.usage, eventId: '123' };
    expect(issuesOf({ ...sample, events })).toEqual([
      { path: 'events[3].usage.prompt_tokens', message: 'must not be negative' },
      { path: 'events[7].model', message: 'required (a string)' },
      { path: 'events[7].eventId', message: 'expected evt_<id> (letters, digits, - and _)' },
    ]);
  });

  it('rejects more than 100 events', () => {
    const events = Array.from({ length: 101 }, () => sample.events[0]);
    expect(issuesOf({ ...sample, events })).toEqual([
      { path: 'events', message: 'a batch holds at most 100 events' },
    ]);
  });

  it('never lets __proto__ or constructor members pollute anything', () => {
    const text =
      '{"apiKey":"abn_x","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},' +
      '"events":[{"model":"m","usage":{"prompt_tokens":1,"completion_tokens":2,"__proto__":{"admin":true}},' +
      '"__proto__":{"polluted":"yes"}}]}';
    const parsed = ingestRequestSchema.parse(JSON.parse(text));
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(parsed.events[0])).toBe(Object.prototype);
    expect(Object.getPrototypeOf(parsed.events[0]!.usage)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['apiKey', 'events']);
    expect((parsed as Record<string, unknown>).polluted).toBeUndefined();
    expect((parsed.events[0]!.usage as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  });
});

describe('ingestBatchOf (spec 4.1: "a single event or a batch")', () => {
  const [event] = sample.events;

  it('makes an event sent on its own a batch of one', () => {
    expect(ingestRequestSchema.parse(ingestBatchOf({ apiKey: sample.apiKey, ...event }))).toEqual(sample);
  });

  it('reads an optional member sent as null as absent, and leaves a required one null (a 400 at its path)', () => {
    const nulls = { ...event, timestamp: null, eventId: null, featureId: null };
    expect(ingestRequestSchema.parse(ingestBatchOf({ apiKey: sample.apiKey, events: [nulls] }))).toEqual({
      apiKey: sample.apiKey,
      events: [{ model: 'gpt-4o', usage: event!.usage }],
    });
    expect(issuesOf(ingestBatchOf({ apiKey: sample.apiKey, events: [{ ...event, model: null }] }))).toEqual([
      { path: 'events[0].model', message: expect.any(String) as unknown },
    ]);
  });

  it('changes nothing else: a batch without nulls, and what is neither (left to the schema)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const isBatchOrEvent =
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          ('events' in value || 'model' in value || 'usage' in value);
        if (!isBatchOrEvent) expect(ingestBatchOf(value)).toBe(value);
      }),
    );
    expect(ingestBatchOf(sample)).toEqual(sample);
  });
});

describe('ingestResponseSchema', () => {
  it('is { status: ok, count }', () => {
    const enforcement = { blocked: false, flags: [] };
    expect(ingestResponseSchema.parse({ status: 'ok', count: 3, enforcement })).toEqual({
      status: 'ok',
      count: 3,
      enforcement,
    });
    expect(ingestResponseSchema.safeParse({ status: 'ok', count: -1, enforcement }).success).toBe(false);
    expect(ingestResponseSchema.safeParse({ status: 'ok', count: 3 }).success).toBe(false);
  });
});
