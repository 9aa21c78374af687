import fc from 'fast-check';
import { grantsAny, isKeyScope, KEY_SCOPES, scopesOf, type KeyScope } from './scopes';

describe('scopesOf', () => {
  it('gives every scope to a key stored without a list (keys from before scopes)', () => {
    expect(scopesOf(undefined)).toEqual(['proxy', 'ingest', 'read']);
    expect(scopesOf(null)).toEqual(['proxy', 'ingest', 'read']);
  });

  it('keeps the known names of a stored list, once each, in display order', () => {
    expect(scopesOf(['read', 'proxy', 'read'])).toEqual(['proxy', 'read']);
    expect(scopesOf(['ingest', 'admin', 7])).toEqual(['ingest']);
  });

  it('property: never grants a scope the stored list does not name', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...KEY_SCOPES), fc.string(), fc.integer())), (stored) => {
        const out = scopesOf(stored);
        for (const s of out) expect(stored).toContain(s);
        expect(new Set(out).size).toBe(out.length);
        expect(out.every(isKeyScope)).toBe(true);
      }),
    );
  });
});

describe('grantsAny', () => {
  it('needs one of the scopes named', () => {
    const ingestOnly: KeyScope[] = ['ingest'];
    expect(grantsAny(ingestOnly, 'ingest')).toBe(true);
    expect(grantsAny(ingestOnly, 'read')).toBe(false);
    expect(grantsAny(ingestOnly, ['proxy', 'ingest'])).toBe(true);
    expect(grantsAny(ingestOnly, [])).toBe(false);
  });
});
