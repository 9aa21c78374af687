/**
 * What a Resume starts again in the pipeline's windows. A person who clears a flag lets the agent go on;
 * the requests that tripped it must not trip it again on its very next call (layer 4 keeps a key's last
 * `maxRequests` timestamps for `windowMs`, layer 5 an hour of spend), only a new burst or a new
 * concentration after the Resume may. So before the verdicts of those two layers are acted on, their
 * windows forget what came before the last Resume of their scope: a key's burst ring its requests up to
 * the key's (or the organization's) Resume; the premium window its buckets that began before the
 * organization's Resume. Layer 1 is money actually spent and keeps it (a Resume under an exceeded cap is
 * refused again); layers 2 and 3 follow runs that a verdict already restarts. Pure.
 */
import { keyHash } from './identity';
import type { BurstEntry } from './burst';
import type { OrgGuardrailState } from './state';
import type { LayerId } from './types';

/** When flags were last cleared by a person: the whole organization's, and per key. Epoch ms. */
export interface Resumes {
  readonly organizationAt: number | null;
  readonly keyAt: ReadonlyMap<string, number>;
}

/** The layers whose windows a Resume starts again. */
export const RESUMABLE_LAYERS: ReadonlySet<LayerId> = new Set<LayerId>(['rpsBurst', 'premiumConcentration']);

/**
 * The state with what came before each Resume left out of the burst rings and the premium window; the
 * same object when nothing changes.
 */
export function sinceResumes(
  state: OrgGuardrailState,
  resumes: Resumes,
  premiumBucketMs: number,
): OrgGuardrailState {
  const org = resumes.organizationAt ?? -Infinity;
  const byHash = new Map<number, number>();
  for (const [keyId, at] of resumes.keyAt) byHash.set(keyHash(keyId), Math.max(at, org));

  const keys = state.layers.rpsBurst.keys;
  let changed = false;
  const entries = keys.entries.map((ring: BurstEntry, i) => {
    const at = byHash.get(keys.ids[i] as number) ?? org;
    if (ring.length === 0 || (ring[0] as number) > at) return ring;
    changed = true;
    return ring.filter((ts) => ts > at);
  });

  const premium = state.layers.premiumConcentration;
  // A bucket that began before the Resume may hold spend from before it: it goes whole.
  const keep = premium.buckets.map((b) => b * premiumBucketMs >= org);
  const premiumChanged = keep.some((k) => !k);

  if (!changed && !premiumChanged) return state;
  return {
    ...state,
    layers: {
      ...state.layers,
      rpsBurst: changed ? { keys: { ids: keys.ids, entries } } : state.layers.rpsBurst,
      premiumConcentration: premiumChanged
        ? {
            buckets: premium.buckets.filter((_, i) => keep[i]),
            totalNanos: premium.totalNanos.filter((_, i) => keep[i]),
            premiumNanos: premium.premiumNanos.filter((_, i) => keep[i]),
          }
        : premium,
    },
  };
}
