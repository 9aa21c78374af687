/**
 * What a Resume starts again in the pipeline's windows. A person who clears a flag lets the agent go on;
 * the requests that tripped it must not trip it again on its very next call (layer 2 keeps counting a
 * run past its verdict, layer 4 keeps a key's last `maxRequests` timestamps for `windowMs`, layer 5 an
 * hour of spend), only a new loop, burst or concentration after the Resume may. So before the verdicts of
 * those layers are acted on, their windows forget what came before the last Resume of their scope: a
 * key's identical-call runs last seen before it, a key's burst ring its requests up to it, the premium
 * window its buckets begun before the organization's Resume. Layer 1 is money actually spent and keeps
 * it (a Resume under an exceeded cap is refused again); layer 3 follows a session's growth, which a new
 * session starts again. Pure.
 */
import { keyHash, ownerTag } from './identity';
import type { BurstEntry } from './burst';
import { keyStreamId, type IdenticalLoopState } from './identical-loop';
import type { OrgGuardrailState } from './state';
import type { LayerId } from './types';

/** When flags were last cleared by a person: the whole organization's, and per key. Epoch ms. */
export interface Resumes {
  readonly organizationAt: number | null;
  readonly keyAt: ReadonlyMap<string, number>;
}

/** The layers whose windows a Resume starts again. */
export const RESUMABLE_LAYERS: ReadonlySet<LayerId> = new Set<LayerId>([
  'identicalLoop',
  'rpsBurst',
  'premiumConcentration',
]);

/**
 * The state with what came before each Resume left out of the burst rings and the premium window; the
 * same object when nothing changes.
 */
export function sinceResumes(
  state: OrgGuardrailState,
  resumes: Resumes,
  premiumBucketMs: number,
  /** The keys and models of the calls at hand: whose key-and-model loop runs to look at. */
  keyModels: Iterable<readonly [keyId: string, model: string]> = [],
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

  const loops = loopsSince(state.layers.identicalLoop, resumes, keyModels);

  if (!changed && !premiumChanged && loops === state.layers.identicalLoop) return state;
  return {
    ...state,
    layers: {
      ...state.layers,
      identicalLoop: loops,
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

/**
 * Layer 2's runs last seen at or before their Resume, dropped: a session run by its key's owner tag (the
 * tag it keeps; a key sharing the tag loses a run idle since the Resume at most), a key-and-model run by
 * the key and the models at hand.
 */
function loopsSince(
  loops: IdenticalLoopState,
  resumes: Resumes,
  keyModels: Iterable<readonly [string, string]>,
): IdenticalLoopState {
  const org = resumes.organizationAt ?? -Infinity;
  const byTag = new Map<number, number>();
  for (const [keyId, at] of resumes.keyAt) {
    const tag = ownerTag(keyHash(keyId));
    byTag.set(tag, Math.max(byTag.get(tag) ?? -Infinity, at, org));
  }
  const byRun = new Map<number, number>();
  for (const [keyId, model] of keyModels) {
    const at = resumes.keyAt.get(keyId);
    if (at !== undefined) byRun.set(keyStreamId(keyId, model), Math.max(at, org));
  }
  const streams = loops.streams;
  const keepStream = streams.entries.map((e) => e[2] > (e[3] === undefined ? org : (byTag.get(e[3]) ?? org)));
  const keyStreams = loops.keyStreams;
  const keepKey = keyStreams?.entries.map((e, i) => e[2] > (byRun.get(keyStreams.ids[i] as number) ?? org));
  const streamsChanged = keepStream.some((k) => !k);
  const keysChanged = keepKey?.some((k) => !k) ?? false;
  if (!streamsChanged && !keysChanged) return loops;
  const kept = <E>(table: { ids: readonly number[]; entries: readonly E[] }, keep: readonly boolean[]) => ({
    ids: table.ids.filter((_, i) => keep[i]),
    entries: table.entries.filter((_, i) => keep[i]),
  });
  return {
    streams: streamsChanged ? kept(streams, keepStream) : streams,
    ...(keyStreams !== undefined
      ? { keyStreams: keysChanged ? kept(keyStreams, keepKey as boolean[]) : keyStreams }
      : {}),
  };
}
