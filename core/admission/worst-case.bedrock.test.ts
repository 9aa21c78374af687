import { cheapWorstCase, preciseWorstCase } from './worst-case';

const converse = (inferenceConfig?: object) =>
  Buffer.from(
    JSON.stringify({
      messages: [{ role: 'user', content: [{ text: 'Summarize the quarterly report.' }] }],
      ...(inferenceConfig ? { inferenceConfig } : {}),
    }),
  );
const call = (body: Buffer, model = 'us.amazon.nova-pro-v1:0') => ({
  provider: 'bedrock',
  flavor: 'anthropic' as const,
  model,
  body,
  atMs: Date.UTC(2026, 10, 1),
});

describe('worst case of a Bedrock Converse request', () => {
  it('bounds the output by inferenceConfig.maxTokens', () => {
    const w = cheapWorstCase(call(converse({ maxTokens: 300, temperature: 0.2 })));
    expect(w).toMatchObject({ outputTokens: 300, outputBound: 'request' });
    expect(preciseWorstCase(call(converse({ maxTokens: 300 })), undefined).outputTokens).toBe(300);
  });

  it("without it, by the model's maximum output (Nova: 10,000), priced at the profile's rate", () => {
    const w = cheapWorstCase(call(converse()));
    expect(w).toMatchObject({ outputTokens: 10_000, outputBound: 'model' });
    // Nova Pro $3.20 per MTok output: the output part alone is 10,000 × 3,200 nanos / 1,000
    expect(w.costNanos).toBeGreaterThanOrEqual(32_000_000);
  });

  it('a maxTokens above the model maximum is capped at the maximum', () => {
    expect(cheapWorstCase(call(converse({ maxTokens: 500_000 }))).outputTokens).toBe(10_000);
  });
});
