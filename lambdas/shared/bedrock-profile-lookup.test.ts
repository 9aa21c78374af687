import { BedrockClient, GetInferenceProfileCommand } from '@aws-sdk/client-bedrock';
import { mockClient } from 'aws-sdk-client-mock';
import { calculateCost, compileOrgRates } from '../../core/pricing';
import { modelIdFromProfileModels } from '../../core/pricing/bedrock-profiles';
import { getInferenceProfileLookup } from './bedrock-profile-lookup';
import { withBedrockProfiles } from './org-rates-source';

const ARN = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
const fm = (region: string, id = 'anthropic.claude-haiku-4-5-20251001-v1:0') =>
  `arn:aws:bedrock:${region}::foundation-model/${id}`;

describe('modelIdFromProfileModels', () => {
  it.each([
    [[fm('us-east-1')], 'anthropic.claude-haiku-4-5-20251001-v1:0'],
    [[fm('us-east-1'), fm('us-east-2'), fm('us-west-2')], 'us.anthropic.claude-haiku-4-5-20251001-v1:0'],
    [[fm('eu-central-1'), fm('eu-west-1')], 'eu.anthropic.claude-haiku-4-5-20251001-v1:0'],
    [[fm('ap-northeast-1'), fm('ap-northeast-3')], 'jp.anthropic.claude-haiku-4-5-20251001-v1:0'],
    [[fm('ap-northeast-1'), fm('ap-south-1')], 'apac.anthropic.claude-haiku-4-5-20251001-v1:0'],
    [
      [fm('us-east-1'), fm('eu-west-1'), fm('ap-northeast-1')],
      'global.anthropic.claude-haiku-4-5-20251001-v1:0',
    ],
  ])('%j → %s', (arns, model) => {
    expect(modelIdFromProfileModels(arns)).toBe(model);
  });

  it('names no single model: undefined', () => {
    expect(modelIdFromProfileModels([])).toBeUndefined();
    expect(
      modelIdFromProfileModels([fm('us-east-1'), fm('us-west-2', 'amazon.nova-pro-v1:0')]),
    ).toBeUndefined();
    expect(modelIdFromProfileModels(['arn:aws:s3:::bucket'])).toBeUndefined();
  });
});

describe('GetInferenceProfile lookup', () => {
  const bedrock = mockClient(BedrockClient);
  beforeEach(() => bedrock.reset());

  it('resolves once per profile and prices the call as the model it routes to', async () => {
    bedrock.on(GetInferenceProfileCommand).resolves({
      inferenceProfileArn: ARN,
      type: 'APPLICATION',
      models: [{ modelArn: fm('us-east-1') }, { modelArn: fm('us-west-2') }],
    });
    const lookup = getInferenceProfileLookup({ clientFor: () => new BedrockClient({ region: 'us-east-1' }) });
    const rates = await withBedrockProfiles(null, [ARN, ARN, 'us.amazon.nova-pro-v1:0', null], lookup);
    expect(bedrock.commandCalls(GetInferenceProfileCommand)).toHaveLength(1);
    expect(bedrock.commandCalls(GetInferenceProfileCommand)[0]?.args[0].input).toEqual({
      inferenceProfileIdentifier: ARN,
    });
    const usage = {
      model: ARN,
      inputTokens: 100_000,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    };
    const cost = calculateCost({ provider: 'bedrock', usage, at: Date.UTC(2026, 10, 1), orgRates: rates });
    expect(cost.costSource).toBe('PROVIDER_REGISTRY');
    expect(cost.costNanos).toBe(110_000_000); // us. Haiku 4.5: $1.10 per MTok
    await lookup.modelOf(ARN);
    expect(bedrock.commandCalls(GetInferenceProfileCommand)).toHaveLength(1); // cached
  });

  it('a denied lookup leaves the profile unresolved, is not repeated within the hour, never rejects', async () => {
    bedrock
      .on(GetInferenceProfileCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    let now = 0;
    const lookup = getInferenceProfileLookup({
      clientFor: () => new BedrockClient({ region: 'us-east-1' }),
      now: () => now,
    });
    await expect(withBedrockProfiles(null, [ARN], lookup)).resolves.toBeNull();
    await lookup.modelOf(ARN);
    expect(bedrock.commandCalls(GetInferenceProfileCommand)).toHaveLength(1);
    now += 60 * 60 * 1000;
    await lookup.modelOf(ARN);
    expect(bedrock.commandCalls(GetInferenceProfileCommand)).toHaveLength(2);
  });

  it("the organization's own mapping wins: no lookup for a mapped profile", async () => {
    const lookup = { modelOf: jest.fn(async () => 'global.amazon.nova-2-lite-v1:0') };
    const mapped = compileOrgRates({ bedrockProfiles: { a1b2c3d4e5f6: 'us.amazon.nova-pro-v1:0' } });
    expect(await withBedrockProfiles(mapped, [ARN], lookup)).toBe(mapped);
    expect(lookup.modelOf).not.toHaveBeenCalled();
  });
});
