import { GUARDRAIL_LAYERS, LAYER_IDS } from './layers';
import { DEFAULT_POLICY, GuardrailPolicyError, parseGuardrailPolicy } from './policy';

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('guardrail policy', () => {
  it('scopes each layer by default as design decision 13 says, and validates the scope like any field', () => {
    expect(LAYER_IDS.map((id) => [id, DEFAULT_POLICY[id].scope])).toEqual([
      ['financialLimits', 'organization'],
      ['identicalLoop', 'session'],
      ['contextGrowth', 'session'],
      ['rpsBurst', 'key'],
      ['premiumConcentration', 'organization'],
    ]);
    expect(parseGuardrailPolicy({ rpsBurst: { scope: 'organization' } }).rpsBurst.scope).toBe('organization');
    const err = captureError(() => parseGuardrailPolicy({ identicalLoop: { scope: 'team' } }));
    expect(err).toBeInstanceOf(GuardrailPolicyError);
    expect((err as GuardrailPolicyError).issues.map((i) => i.path)).toEqual(['identicalLoop.scope']);
  });

  it('defaults to the spec: 4 identical calls, > 10 per sliding minute, > 90 % premium over $5/h, no budget', () => {
    expect(DEFAULT_POLICY).toMatchObject({
      financialLimits: {
        enabled: true,
        dailyHardCapNanos: null,
        monthlyHardCapNanos: null,
        softCapMode: 'alert',
        hardCapMode: 'hard_stop',
      },
      identicalLoop: { enabled: true, consecutive: 4, mode: 'hard_stop' },
      contextGrowth: {
        enabled: true,
        window: 6,
        minIncrementTokens: 50,
        maxSpreadRatio: 0.1,
        mode: 'hard_stop',
      },
      rpsBurst: { enabled: true, maxRequests: 10, windowMs: 60_000, mode: 'hard_stop' },
      premiumConcentration: {
        enabled: true,
        maxShare: 0.9,
        windowMs: 3_600_000,
        bucketMs: 60_000,
        minSpendNanos: 5_000_000_000,
        mode: 'hard_stop',
      },
      limits: { maxSessions: 128, maxKeys: 64 },
    });
  });

  it('fills missing fields with the defaults', () => {
    const policy = parseGuardrailPolicy({
      financialLimits: { dailyHardCapNanos: 100e9 },
      rpsBurst: { maxRequests: 30 },
    });
    expect(policy.financialLimits.dailyHardCapNanos).toBe(100e9);
    expect(policy.financialLimits.softCapMode).toBe('alert');
    expect(policy.rpsBurst).toEqual({ ...DEFAULT_POLICY.rpsBurst, maxRequests: 30 });
    expect(parseGuardrailPolicy(undefined)).toEqual(DEFAULT_POLICY);
  });

  it.each([
    {
      name: 'a fractional nano amount',
      input: { financialLimits: { dailyHardCapNanos: 1.5 } },
      path: 'financialLimits.dailyHardCapNanos',
    },
    { name: 'an unknown mode', input: { rpsBurst: { mode: 'nuke' } }, path: 'rpsBurst.mode' },
    {
      name: 'a share above 1',
      input: { premiumConcentration: { maxShare: 1.5 } },
      path: 'premiumConcentration.maxShare',
    },
    {
      name: 'a window not divisible into buckets',
      input: { premiumConcentration: { bucketMs: 7000 } },
      path: 'premiumConcentration',
    },
    {
      name: 'a threshold of 1 identical call',
      input: { identicalLoop: { consecutive: 1 } },
      path: 'identicalLoop.consecutive',
    },
  ])('rejects $name with the field path', ({ input, path }) => {
    const thrown = captureError(() => parseGuardrailPolicy(input));
    expect(thrown).toBeInstanceOf(GuardrailPolicyError);
    expect((thrown as GuardrailPolicyError).issues.map((i) => i.path)).toContain(path);
  });

  it('every layer in the registry has its metadata and its policy section', () => {
    expect(LAYER_IDS).toEqual([
      'financialLimits',
      'identicalLoop',
      'contextGrowth',
      'rpsBurst',
      'premiumConcentration',
    ]);
    LAYER_IDS.forEach((id, i) => {
      const layer = GUARDRAIL_LAYERS[id];
      expect(layer).toMatchObject({ id, ordinal: i + 1 });
      expect(layer.name.length).toBeGreaterThan(0);
      expect(layer.description.length).toBeGreaterThan(0);
      expect(layer.triggerTypes.length).toBeGreaterThan(0);
      expect(layer.policyOf(DEFAULT_POLICY)).toEqual(layer.defaults);
    });
  });
});
