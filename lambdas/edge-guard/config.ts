/**
 * Lambda@Edge has no environment variables (design decision 3): the guard's configuration is baked
 * into the bundle at build time. The CDK bundling step replaces the identifier `__SPENDGUARD_CONFIG__`
 * with a JSON literal through esbuild's `define` (see {@link esbuildDefineFor}).
 */
import { DEFAULT_THROTTLE_POLICY, type ThrottlePolicy } from './throttle';
import { FLAG_CACHE_TTL_MS } from '../shared/flag-propagation';

/** The guard's baked-in configuration. */
export interface EdgeGuardConfig {
  /** Name of the Flags global table (the same in every replica region). */
  readonly flagsTableName: string;
  /**
   * The edge function's AWS_REGION (the region CloudFront ran it in) → the region of the nearest
   * Flags replica. Regions missing from the map read from {@link homeRegion}.
   */
  readonly replicaRegions: Readonly<Record<string, string>>;
  /** The table's home region, used for edge regions without a nearer replica. */
  readonly homeRegion: string;
  /** ARN of the pepper secret (Secrets Manager). */
  readonly pepperSecretArn: string;
  /** Region of the pepper secret. Lambda@Edge functions are created in us-east-1. @default 'us-east-1' */
  readonly pepperSecretRegion: string;
  /** Lifetime of a cached flag lookup in ms (part of the propagation bound). @default 1000 */
  readonly cacheTtlMs: number;
  /** Keys whose lookups are cached per container. @default 10000 */
  readonly cacheMaxEntries: number;
  /** A flag read slower than this fails open. @default 1000 */
  readonly lookupTimeoutMs: number;
  /** What THROTTLED allows per key per container. @default 1 request / 6 s */
  readonly throttle: ThrottlePolicy;
}

/** The fields with defaults may be left out of the baked JSON. */
export type EdgeGuardConfigInput = Pick<
  EdgeGuardConfig,
  'flagsTableName' | 'replicaRegions' | 'homeRegion' | 'pepperSecretArn'
> &
  Partial<EdgeGuardConfig>;

/** Thrown for a missing or invalid baked-in configuration (the handler then fails open). */
export class EdgeConfigError extends Error {
  override readonly name = 'EdgeConfigError';
}

declare const __SPENDGUARD_CONFIG__: unknown;

/** The configuration baked in at build, validated; throws {@link EdgeConfigError} without one. */
export function bakedConfig(): EdgeGuardConfig {
  const raw = typeof __SPENDGUARD_CONFIG__ === 'undefined' ? undefined : __SPENDGUARD_CONFIG__;
  return parseEdgeGuardConfig(raw);
}

/** Validates a configuration and fills the defaults. */
export function parseEdgeGuardConfig(raw: unknown): EdgeGuardConfig {
  if (typeof raw !== 'object' || raw === null) throw new EdgeConfigError('no baked-in __SPENDGUARD_CONFIG__');
  const c = raw as Record<string, unknown>;
  const str = (name: string): string => {
    const v = c[name];
    if (typeof v !== 'string' || v.length === 0) throw new EdgeConfigError(`config.${name} must be a string`);
    return v;
  };
  const num = (name: string, fallback: number): number => {
    const v = c[name] ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new EdgeConfigError(`config.${name} must be a positive number`);
    }
    return v;
  };
  const regions = c.replicaRegions ?? {};
  if (
    typeof regions !== 'object' ||
    regions === null ||
    Object.values(regions).some((r) => typeof r !== 'string')
  ) {
    throw new EdgeConfigError('config.replicaRegions must map region names to region names');
  }
  const throttle = (c.throttle ?? DEFAULT_THROTTLE_POLICY) as Partial<ThrottlePolicy>;
  const capacity = throttle.capacity ?? DEFAULT_THROTTLE_POLICY.capacity;
  const refillIntervalMs = throttle.refillIntervalMs ?? DEFAULT_THROTTLE_POLICY.refillIntervalMs;
  if (!(capacity >= 1) || !(refillIntervalMs > 0)) {
    throw new EdgeConfigError('config.throttle needs capacity ≥ 1 and refillIntervalMs > 0');
  }
  return {
    flagsTableName: str('flagsTableName'),
    replicaRegions: regions as Record<string, string>,
    homeRegion: str('homeRegion'),
    pepperSecretArn: str('pepperSecretArn'),
    pepperSecretRegion: typeof c.pepperSecretRegion === 'string' ? c.pepperSecretRegion : 'us-east-1',
    cacheTtlMs: num('cacheTtlMs', FLAG_CACHE_TTL_MS),
    cacheMaxEntries: num('cacheMaxEntries', 10_000),
    lookupTimeoutMs: num('lookupTimeoutMs', 1000),
    throttle: { capacity, refillIntervalMs },
  };
}

/** The Flags replica region for the edge region the function runs in. */
export function replicaRegionFor(awsRegion: string | undefined, config: EdgeGuardConfig): string {
  if (awsRegion === undefined) return config.homeRegion;
  return config.replicaRegions[awsRegion] ?? config.homeRegion;
}

/**
 * The esbuild `define` entry that bakes `config` into the edge bundle (CDK: `bundling.define`).
 *
 * @example
 * new NodejsFunction(this, 'EdgeGuard', { entry: 'lambdas/edge-guard/handler.ts',
 *   bundling: { define: esbuildDefineFor({ flagsTableName, replicaRegions, homeRegion, pepperSecretArn }) } });
 */
export function esbuildDefineFor(config: EdgeGuardConfigInput): Record<string, string> {
  const full = parseEdgeGuardConfig(config);
  return { __SPENDGUARD_CONFIG__: JSON.stringify(full) };
}
