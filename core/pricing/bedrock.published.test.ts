/**
 * Amazon Bedrock prices, one case per row of docs/bedrock.md's pricing table, each against the price
 * published on aws.amazon.com/bedrock/pricing (USD per million tokens, written out here by hand).
 */
import { calculateCost } from './cost';
import { compileOrgRates } from './org-rates';

const AT = Date.UTC(2026, 10, 1);
/** Below the 200k long-context threshold of Claude Sonnet 4 / 4.5. */
const M = 100_000;
const usage = (model: string, u: Partial<Record<string, number | string>>) => ({
  model,
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...u,
});
/** Nanos of `tokens` at `usdPerMTok`, exact. */
const at = (tokens: number, usdPerMTok: number) => Math.round((tokens * usdPerMTok * 1000) / 1);

describe('Bedrock published prices (docs/bedrock.md table)', () => {
  it.each<[string, string, Partial<Record<string, number | string>>, number]>([
    // Claude Haiku 4.5: global $1.00 in / $5.00 out; regional (us., eu., jp., apac.) +10 %: $1.10 / $5.50
    [
      'global profile',
      'global.anthropic.claude-haiku-4-5-20251001-v1:0',
      { inputTokens: M, outputTokens: M },
      at(M, 1) + at(M, 5),
    ],
    [
      'regional profile (us.)',
      'us.anthropic.claude-haiku-4-5-20251001-v1:0',
      { inputTokens: M, outputTokens: M },
      at(M, 1.1) + at(M, 5.5),
    ],
    [
      'regional profile (eu.)',
      'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
      { inputTokens: M },
      at(M, 3.3),
    ],
    // Claude Sonnet 4.5 global: cache read $0.30, 5-minute write $3.75, 1-hour write $6.00
    [
      'cache read',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      { inputTokens: M, cacheReadTokens: M },
      at(M, 0.3),
    ],
    [
      '5-minute cache write',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      { inputTokens: M, cacheWrite5mTokens: M },
      at(M, 3.75),
    ],
    [
      '1-hour cache write',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      { inputTokens: M, cacheWrite1hTokens: M },
      at(M, 6),
    ],
    // OpenAI GPT-5.4 on Bedrock: $2.75 in, $0.275 cached in, $16.50 out; Converse counts cache reads IN inputTokens
    [
      'OpenAI on Bedrock, inclusive counts',
      'openai.gpt-5.4',
      { inputTokens: M, cacheReadTokens: M / 2, outputTokens: M },
      at(M / 2, 2.75) + at(M / 2, 0.275) + at(M, 16.5),
    ],
    // Nova Pro: standard $0.80 / $3.20; Priority $1.40 / $5.60; Flex $0.40 / $1.60; Batch $0.40 / $1.60
    [
      'standard (Nova Pro)',
      'us.amazon.nova-pro-v1:0',
      { inputTokens: M, outputTokens: M },
      at(M, 0.8) + at(M, 3.2),
    ],
    [
      'priority tier',
      'us.amazon.nova-pro-v1:0',
      { inputTokens: M, outputTokens: M, serviceTier: 'priority' },
      at(M, 1.4) + at(M, 5.6),
    ],
    [
      'flex tier',
      'us.amazon.nova-pro-v1:0',
      { inputTokens: M, outputTokens: M, serviceTier: 'flex' },
      at(M, 0.4) + at(M, 1.6),
    ],
    [
      'batch',
      'amazon.nova-pro-v1:0',
      { inputTokens: M, outputTokens: M, serviceTier: 'batch' },
      at(M, 0.4) + at(M, 1.6),
    ],
    [
      'system inference-profile ARN',
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-haiku-4-5-20251001-v1:0',
      { inputTokens: M },
      at(M, 1),
    ],
  ])('%s', (_case, model, u, nanos) => {
    const r = calculateCost({ provider: 'bedrock', usage: usage(model, u), at: AT });
    expect(r.costSource).toBe('PROVIDER_REGISTRY');
    expect(r.costNanos).toBe(nanos);
  });

  it('regional profiles cost exactly 10 % more than global ones', () => {
    const g = calculateCost({
      provider: 'bedrock',
      usage: usage('global.anthropic.claude-sonnet-4-5-20250929-v1:0', { inputTokens: M, outputTokens: M }),
      at: AT,
    });
    for (const geo of ['us', 'eu', 'jp', 'apac']) {
      const r = calculateCost({
        provider: 'bedrock',
        usage: usage(`${geo}.anthropic.claude-sonnet-4-5-20250929-v1:0`, { inputTokens: M, outputTokens: M }),
        at: AT,
      });
      expect(r.costNanos * 10).toBe(g.costNanos * 11);
    }
  });

  it('an application inference profile is priced as the model the organization maps it to', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
    const orgRates = compileOrgRates({
      bedrockProfiles: { [arn]: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
    });
    const r = calculateCost({
      provider: 'bedrock',
      usage: usage(arn, { inputTokens: M, outputTokens: M }),
      at: AT,
      orgRates,
    });
    expect(r.costSource).toBe('PROVIDER_REGISTRY');
    expect(r.costNanos).toBe(at(M, 3.3) + at(M, 16.5));
    // by profile id alone, too
    const byId = compileOrgRates({ bedrockProfiles: { a1b2c3d4e5f6: 'global.amazon.nova-2-lite-v1:0' } });
    expect(
      calculateCost({ provider: 'bedrock', usage: usage(arn, { inputTokens: M }), at: AT, orgRates: byId })
        .costNanos,
    ).toBe(at(M, 0.3));
  });

  it('rejects a mapping key that is not an application profile', () => {
    expect(() =>
      compileOrgRates({ bedrockProfiles: { 'arn:aws:s3:::bucket/x': 'amazon.nova-pro-v1:0' } }),
    ).toThrow(/bedrockProfiles/);
  });
});
