import { evaluateGuardrails, formatEvaluationReport } from './evaluate';

describe('guardrail evaluation against the workload', () => {
  const report = evaluateGuardrails({ seed: 1, normalSessions: 1000, scenariosPerKind: 20 });

  it('covers at least 1,000 normal sessions', () => {
    expect(report.normal.sessions).toBeGreaterThanOrEqual(1000);
  });

  it('has zero false positives over the normal sessions, on every layer', () => {
    expect(report.normal.falsePositiveVerdicts).toBe(0);
    for (const layer of report.layers) expect(layer.falsePositives).toBe(0);
  });

  it.each([
    'identical_loop',
    'identical_loop_sdk',
    'aggregator_drift_loop',
    'linear_growth_loop',
    'burst',
    'premium_hijack',
    'overspend',
  ])('kills every %s runaway, by its own layer', (kind) => {
    const r = report.runaways.find((x) => x.kind === kind);
    expect(r?.killed).toBe(r?.scenarios);
    expect(r?.detectedByExpectedLayer).toBe(r?.scenarios);
  });

  it('layer 2 kills on exactly the 4th identical call', () => {
    for (const kind of ['identical_loop', 'identical_loop_sdk']) {
      const r = report.runaways.find((x) => x.kind === kind);
      expect(r?.callsUntilKill).toEqual({ min: 4, median: 4, max: 4 });
      expect(r?.exactKills).toEqual({ met: 20, of: 20 });
    }
  });

  it('layer 4 kills on the 11th request inside a 60 s window (the oracle’s index)', () => {
    for (const kind of ['burst', 'aggregator_drift_loop']) {
      const r = report.runaways.find((x) => x.kind === kind);
      expect(r?.exactKills).toEqual({ met: 20, of: 20 });
      expect(r?.callsUntilKill?.min).toBe(11);
    }
  });

  it('layer 3 kills a linear loop within window + 1 calls', () => {
    const r = report.runaways.find((x) => x.kind === 'linear_growth_loop');
    expect(r?.callsUntilKill?.max).toBeLessThanOrEqual(7);
  });

  it('meets every target and prints a report', () => {
    expect(report.targets).toEqual({
      everyRunawayKilled: true,
      zeroFalsePositives: true,
      identicalLoopOnFourthCall: true,
      burstOnEleventhRequest: true,
    });
    expect(formatEvaluationReport(report)).toContain('targets: every runaway killed YES');
  });
});
