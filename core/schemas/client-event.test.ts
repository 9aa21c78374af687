import { clientEventBatchSchema, clientEventSchema } from './client-event';
import { formatZodIssues } from './issues';

/** A spec 2.1 event with every field the specification shows. */
const specEvent = {
  id: '3b241101-e2bb-4255-8caf-4136c566a962',
  timestamp: '2026-04-09T12:00:00.000Z',
  provider: 'openai',
  model: 'gpt-4o-mini',
  promptTokens: 1200,
  completionTokens: 350,
  totalTokens: 1550,
  estimatedCostUsd: 0.00039,
  costSource: 'PROVIDER_REGISTRY',
  latencyMs: 850,
  statusCode: 200,
  projectId: 'checkout-bot',
  environment: 'production',
};

const issuesOf = (input: unknown) => {
  const r = clientEventSchema.safeParse(input);
  return r.success ? [] : formatZodIssues(r.error);
};

describe('clientEventSchema', () => {
  it('accepts the spec 2.1 event', () => {
    expect(clientEventSchema.parse(specEvent)).toEqual({ ...specEvent, kind: 'call' });
  });

  it('defaults projectId, environment and kind', () => {
    const { projectId: _p, environment: _e, ...rest } = specEvent;
    expect(clientEventSchema.parse(rest)).toMatchObject({
      projectId: 'default',
      environment: 'production',
      kind: 'call',
    });
  });

  it('accepts every extension, fractional latency, and a budget warning', () => {
    const full = {
      ...specEvent,
      latencyMs: 850.25,
      kind: 'budget_warning',
      fingerprint: 'sha256:' + 'a'.repeat(64),
      sessionId: 'sess_1',
      featureId: 'summarize',
      cacheReadTokens: 1000,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 100,
      serviceTier: 'flex',
      estimated: true,
      stream: true,
      endpoint: '/v1/chat/completions',
      droppedEvents: 3,
    };
    expect(clientEventSchema.parse(full)).toEqual(full);
  });

  it('drops unknown fields', () => {
    expect(clientEventSchema.parse({ ...specEvent, prompt: 'secret text' })).not.toHaveProperty('prompt');
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a negative count', { promptTokens: -1 }, 'promptTokens', /negative/],
    ['a fractional count', { completionTokens: 1.5 }, 'completionTokens', /whole number/],
    ['NaN', { totalTokens: NaN }, 'totalTokens', /whole number/],
    ['a huge count', { promptTokens: 1e12 }, 'promptTokens', /at most 20000000 /],
    ['a count as a string', { promptTokens: '12' }, 'promptTokens', /whole number/],
    ['a missing model', { model: undefined }, 'model', /required/],
    ['an empty model', { model: '' }, 'model', /empty/],
    ['a very long model', { model: 'm'.repeat(300) }, 'model', /at most 256/],
    ['a model with a newline', { model: 'gpt\n4' }, 'model', /control/],
    ['an upper-case provider', { provider: 'OpenAI' }, 'provider', /lowercase/],
    ['a v1 UUID', { id: 'c232ab00-9414-11ec-b3c8-9f6bdeced846' }, 'id', /UUID v4/],
    ['a date without time', { timestamp: '2026-04-09' }, 'timestamp', /ISO 8601/],
    ['an unknown cost source', { costSource: 'GUESS' }, 'costSource', /PROVIDER_REGISTRY/],
    ['an unknown environment', { environment: 'prod' }, 'environment', /production/],
    ['an infinite cost', { estimatedCostUsd: Infinity }, 'estimatedCostUsd', /number/],
    ['a negative latency', { latencyMs: -3 }, 'latencyMs', /negative/],
    ['a status above 999', { statusCode: 1000 }, 'statusCode', /999/],
    ['a short fingerprint', { fingerprint: 'sha256:abc' }, 'fingerprint', /64 lowercase hex/],
    ['an unknown kind', { kind: 'warning' }, 'kind', /call/],
  ])('rejects %s at its path', (_name, change, path, message) => {
    const issues = issuesOf({ ...specEvent, ...change });
    expect(issues).toEqual([{ path, message: expect.stringMatching(message) as unknown }]);
  });
});

describe('clientEventBatchSchema', () => {
  const event = (i: number) => ({
    ...specEvent,
    id: `3b241101-e2bb-4255-8caf-${String(i).padStart(12, '0')}`,
  });

  it('accepts 1 to 100 events and an optional dropped count', () => {
    expect(clientEventBatchSchema.parse({ events: [event(1)], droppedEvents: 2 }).droppedEvents).toBe(2);
    expect(
      clientEventBatchSchema.safeParse({ events: Array.from({ length: 100 }, (_, i) => event(i)) }).success,
    ).toBe(true);
  });

  it('rejects an empty or oversized batch', () => {
    const over = clientEventBatchSchema.safeParse({
      events: Array.from({ length: 101 }, (_, i) => event(i)),
    });
    expect(over.success ? [] : formatZodIssues(over.error)).toEqual([
      { path: 'events', message: 'a batch holds at most 100 events' },
    ]);
    expect(clientEventBatchSchema.safeParse({ events: [] }).success).toBe(false);
  });

  it('names the event and field that is wrong', () => {
    const r = clientEventBatchSchema.safeParse({ events: [event(1), { ...event(2), promptTokens: -5 }] });
    expect(r.success ? [] : formatZodIssues(r.error)).toEqual([
      { path: 'events[1].promptTokens', message: 'must not be negative' },
    ]);
  });
});
