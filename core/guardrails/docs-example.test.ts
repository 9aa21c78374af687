// The snippet of docs/guardrails.md ("Using the engine"), compiled and run as a test.
import { applyEvents, financialBlockState, parseGuardrailPolicy, reviveOrgState } from './index';
import type { GuardrailEvent } from './index';

describe('docs/guardrails.md snippet', () => {
  it('runs as documented', () => {
    const now = Date.UTC(2026, 3, 9, 12);
    const events: GuardrailEvent[] = Array.from({ length: 4 }, (_, i) => ({
      seq: `4960${i}`,
      orgId: 'org_42',
      keyId: 'abn_pub123',
      sessionId: 'agent-run-7',
      provider: 'openai',
      model: 'gpt-4.1',
      fingerprint: 'sha256:9f2c4e1b7a3d5f60718293a4b5c6d7e8f9012345678901234567890abcdef12',
      promptTokens: 1200,
      completionTokens: 80,
      costNanos: 3_040_000, // $0.00304
      premium: false,
      ts: now - 1000 * (4 - i),
    }));

    const storedItem: unknown = undefined; // what DynamoDB returned: nothing yet
    // --- snippet start ---
    const policy = parseGuardrailPolicy({ financialLimits: { dailyHardCapNanos: 100e9 } }); // $100/day
    const state = reviveOrgState(storedItem); // the stored JSON, or a fresh state when there is none
    const result = applyEvents(state, events, policy, now);
    // result.verdicts → POST /api/guardrails/enforce (or a notification when action is WARN)
    // result.state    → save with a condition on the previous lastSeq
    const block = financialBlockState(result.state, policy, now); // flag TTL for layer 1
    // --- snippet end ---

    expect(result.verdicts).toEqual([
      expect.objectContaining({
        triggerType: 'token_loop_identical',
        action: 'SUSPENDED',
        observedValue: 4,
        thresholdValue: 4,
      }),
    ]);
    expect(result.state.lastSeq).toBe('49603');
    expect(block.blocked).toBe(false);
  });
});
