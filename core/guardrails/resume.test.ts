import fc from 'fast-check';
import { keyStreamId } from './identical-loop';
import { keyHash, ownerTag } from './identity';
import { sinceResumes, type Resumes } from './resume';
import { initialOrgState, type OrgGuardrailState } from './state';
import { deepFreeze, T0 } from './test-support';

const MINUTE = 60_000;
const none: Resumes = { organizationAt: null, keyAt: new Map() };

/** A state with burst rings for keys a and b and three premium buckets (minutes 0, 1 and 2 after T0). */
function state(): OrgGuardrailState {
  const s = initialOrgState();
  const minute = Math.floor(T0 / MINUTE);
  return deepFreeze({
    ...s,
    layers: {
      ...s.layers,
      rpsBurst: {
        keys: {
          ids: [keyHash('abn_a'), keyHash('abn_b')],
          entries: [
            [T0 + 1000, T0 + 2000, T0 + 3000],
            [T0 + 1500, T0 + 2500],
          ],
        },
      },
      premiumConcentration: {
        buckets: [minute, minute + 1, minute + 2],
        totalNanos: [10, 20, 30],
        premiumNanos: [9, 18, 27],
      },
    },
  });
}

describe('sinceResumes (what a Resume starts again)', () => {
  it('changes nothing without a Resume, or with one older than every window', () => {
    const s = state();
    expect(sinceResumes(s, none, MINUTE)).toBe(s);
    expect(sinceResumes(s, { organizationAt: T0 - MINUTE, keyAt: new Map([['abn_a', 0]]) }, MINUTE)).toBe(s);
  });

  it("a key's Resume drops that key's requests up to it, and no other key's, and leaves the premium window", () => {
    const s = state();
    const out = sinceResumes(s, { organizationAt: null, keyAt: new Map([['abn_a', T0 + 2000]]) }, MINUTE);
    expect(out.layers.rpsBurst.keys.entries).toEqual([[T0 + 3000], [T0 + 1500, T0 + 2500]]);
    expect(out.layers.premiumConcentration).toBe(s.layers.premiumConcentration);
  });

  it("the organization's Resume drops every key's requests up to it and the premium buckets begun before it", () => {
    const out = sinceResumes(state(), { organizationAt: T0 + MINUTE + 1, keyAt: new Map() }, MINUTE);
    expect(out.layers.rpsBurst.keys.entries).toEqual([[], []]);
    // the bucket of minute 1 began before the Resume (it may hold spend from before): it goes whole
    expect(out.layers.premiumConcentration).toEqual({
      buckets: [Math.floor(T0 / MINUTE) + 2],
      totalNanos: [30],
      premiumNanos: [27],
    });
  });

  it('property: every kept timestamp is after its Resume, and every dropped one at or before it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 12 }),
        fc.integer({ min: -1, max: 10_001 }),
        fc.boolean(),
        (offsets, resumeOffset, byKey) => {
          const ring = [...offsets].sort((x, y) => x - y).map((o) => T0 + o);
          const base = initialOrgState();
          const s: OrgGuardrailState = {
            ...base,
            layers: { ...base.layers, rpsBurst: { keys: { ids: [keyHash('abn_k')], entries: [ring] } } },
          };
          const at = T0 + resumeOffset;
          const resumes: Resumes = byKey
            ? { organizationAt: null, keyAt: new Map([['abn_k', at]]) }
            : { organizationAt: at, keyAt: new Map() };
          const kept = sinceResumes(s, resumes, MINUTE).layers.rpsBurst.keys.entries[0]!;
          expect(kept).toEqual(ring.filter((ts) => ts > at));
        },
      ),
    );
  });

  it("a key's Resume drops its identical-call runs last seen up to it (session runs by owner tag, key runs by key and model)", () => {
    const base = initialOrgState();
    const s: OrgGuardrailState = {
      ...base,
      layers: {
        ...base.layers,
        identicalLoop: {
          streams: {
            ids: [1, 2, 3],
            entries: [
              [7, 5, T0 + 1000, ownerTag(keyHash('abn_a'))], // a's session run, before the Resume
              [7, 2, T0 + 9000, ownerTag(keyHash('abn_a'))], // a's, after it
              [7, 5, T0 + 1000, ownerTag(keyHash('abn_b'))], // b's
            ],
          },
          keyStreams: {
            ids: [keyStreamId('abn_a', 'gpt-4o'), keyStreamId('abn_b', 'gpt-4o')],
            entries: [
              [7, 5, T0 + 1000, 1, 3],
              [7, 5, T0 + 1000, 3, 0],
            ],
          },
        },
      },
    };
    const out = sinceResumes(s, { organizationAt: null, keyAt: new Map([['abn_a', T0 + 5000]]) }, MINUTE, [
      ['abn_a', 'gpt-4o'] as const,
      ['abn_b', 'gpt-4o'] as const,
    ]).layers.identicalLoop;
    expect(out.streams.entries.map((e) => e[2])).toEqual([T0 + 9000, T0 + 1000]);
    expect(out.keyStreams!.ids).toEqual([keyStreamId('abn_b', 'gpt-4o')]);
    // The organization's Resume drops every run last seen up to it.
    const org = sinceResumes(s, { organizationAt: T0 + 5000, keyAt: new Map() }, MINUTE).layers.identicalLoop;
    expect(org.streams.entries.map((e) => e[2])).toEqual([T0 + 9000]);
    expect(org.keyStreams!.ids).toEqual([]);
  });
});
