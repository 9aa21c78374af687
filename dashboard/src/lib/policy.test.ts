import { describe, expect, it } from 'vitest';

import { draftOf, fieldKind, fieldLabel, policyProblems, policyView, sectionsOf } from './policy';

describe('policy editing', () => {
  const layers = {
    rpsBurst: { enabled: true, maxRequests: 10, windowMs: 60_000, mode: 'hard_stop' },
    financialLimits: { enabled: true, dailySoftCapNanos: null, softCapMode: 'alert' },
  };

  it('orders sections by layer and prefers the API layerInfo for names', () => {
    const view = policyView({
      layers,
      layerInfo: [{ id: 'rpsBurst', ordinal: 4, name: 'Burst guard', description: 'd' }],
    });
    expect(view.layers.map(([id]) => id)).toEqual(['financialLimits', 'rpsBurst']);
    expect(view.meta.rpsBurst?.name).toBe('Burst guard');
    expect(view.rebuild({ rpsBurst: layers.rpsBurst })).toEqual({ layers: { rpsBurst: layers.rpsBurst } });
  });

  it('derives kinds and labels from key names', () => {
    expect(fieldKind('enabled', true)).toBe('boolean');
    expect(fieldKind('hardCapMode', 'hard_stop')).toBe('mode');
    expect(fieldKind('minSpendNanos', 5)).toBe('usd');
    expect(fieldKind('dailySoftCapNanos', null)).toBe('usd');
    expect(fieldKind('maxShare', 0.9)).toBe('number');
    expect(fieldLabel('minSpendNanos')).toBe('Min spend (USD)');
    expect(fieldLabel('windowMs')).toBe('Window (ms)');
  });

  it('round-trips the draft: nanos as dollars, an emptied nullable field back to null, errors keyed by layer', () => {
    const view = policyView({ layers });
    const draft = draftOf(view.layers);
    expect(draft.rpsBurst).toEqual({
      enabled: true,
      maxRequests: '10',
      windowMs: '60000',
      mode: 'hard_stop',
    });
    draft.financialLimits!.dailySoftCapNanos = '12.5';
    expect(sectionsOf(view.layers, draft).sections.financialLimits?.dailySoftCapNanos).toBe(12_500_000_000);
    draft.financialLimits!.dailySoftCapNanos = '';
    expect(sectionsOf(view.layers, draft).sections.financialLimits?.dailySoftCapNanos).toBeNull();
    draft.rpsBurst!.maxRequests = '';
    draft.rpsBurst!.windowMs = 'abc';
    expect(sectionsOf(view.layers, draft).errors).toEqual({
      'rpsBurst.maxRequests': 'Enter a number',
      'rpsBurst.windowMs': 'Enter a number',
    });
  });

  it('maps problems onto known fields only', () => {
    const draft = draftOf(policyView({ layers }).layers);
    expect(
      policyProblems(
        [
          { path: 'policy.layers.rpsBurst.maxRequests', message: 'too big' },
          { path: 'policy.layers', message: 'unknown layer x' },
          { path: 'policy.version', message: 'nope' },
        ],
        draft,
      ),
    ).toEqual({
      byField: { 'rpsBurst.maxRequests': 'too big' },
      general: [
        { path: 'policy.layers', message: 'unknown layer x' },
        { path: 'policy.version', message: 'nope' },
      ],
    });
  });
});
