/**
 * Option validation. Invalid values never throw: each is replaced by its default and reported in
 * `problems` (logged when `debug` is true).
 */
import { getProvider } from '../../core/providers/catalog';
import { normalizeBudget, type NormalizedBudget } from './budget';
import { envVar } from './runtime';
import type { Environment, ServiceOptions, WrapFetchOptions } from './types';

/** Client-wide settings (one buffer, one transport, one budget). */
export interface ClientConfig {
  readonly apiKey: string | null;
  /** Base URL without trailing slash. */
  readonly endpoint: string | null;
  readonly debug: boolean;
  readonly flushIntervalMs: number;
  readonly maxBatchSize: number;
  readonly bufferCapacity: number;
  readonly budget: NormalizedBudget | null;
  readonly serverFlags: boolean;
  readonly serverBudget: boolean;
}

/** What each event of a wrapper is labelled with. */
export interface Labels {
  readonly projectId: string;
  readonly environment: Environment;
  readonly sessionId: string | undefined;
  readonly featureId: string | undefined;
}

export interface NormalizedOptions {
  readonly config: ClientConfig;
  readonly labels: Labels;
  /** The forced provider id of a wrapFetch, when valid. */
  readonly provider: string | undefined;
  readonly problems: readonly string[];
}

type Raw = Record<string, unknown>;

// eslint-disable-next-line no-control-regex -- labels must be printable (the wire schema refuses control characters)
const CONTROL_CHARS = /[\x00-\x1f\x7f]/g;
const ENVIRONMENTS: readonly Environment[] = ['production', 'staging', 'development'];

/** Validates options (of any type: a wrong type counts as no options). Never throws. */
export function normalizeOptions(options: ServiceOptions | WrapFetchOptions | undefined): NormalizedOptions {
  const problems: string[] = [];
  let raw: Raw = {};
  try {
    if (typeof options === 'object' && options !== null) raw = { ...options };
    else if (options !== undefined) problems.push('options: not an object');
  } catch {
    problems.push('options: unreadable');
  }
  const text = (name: string, value: unknown = raw[name]): string | undefined => {
    if (value === undefined || value === null) return undefined;
    const cleaned = typeof value === 'string' ? value.replace(CONTROL_CHARS, '').trim().slice(0, 256) : '';
    if (cleaned !== value) problems.push(`${name}: ${cleaned ? 'cleaned' : 'ignored'}`);
    return cleaned || undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const value = raw[name];
    if (value === undefined) return fallback;
    const n =
      typeof value === 'number' && Number.isFinite(value)
        ? Math.min(max, Math.max(min, Math.floor(value)))
        : fallback;
    if (n !== value) problems.push(`${name}: using ${n}`);
    return n;
  };
  const rawEndpoint = text('endpoint') ?? envVar('SPENDGUARD_ENDPOINT');
  const endpoint = rawEndpoint === undefined ? null : parseBaseUrl(rawEndpoint);
  if (rawEndpoint !== undefined && endpoint === null) problems.push('endpoint: not an http(s) URL');
  let environment = raw.environment as Environment;
  if (!ENVIRONMENTS.includes(environment)) {
    if (environment !== undefined) problems.push('environment: not production, staging or development');
    const env = envVar('SPENDGUARD_ENVIRONMENT') ?? envVar('NODE_ENV');
    environment =
      env === 'staging' ? env : env === 'development' || env === 'test' ? 'development' : 'production';
  }
  let provider: string | undefined;
  if (raw.provider !== undefined) {
    provider = typeof raw.provider === 'string' ? raw.provider.trim().toLowerCase() : '';
    if (getProvider(provider) === undefined) {
      problems.push('provider: unknown id, detecting from the URL');
      provider = undefined;
    }
  }
  return {
    config: {
      apiKey: text('apiKey') ?? envVar('SPENDGUARD_API_KEY') ?? null,
      endpoint,
      debug: raw.debug === true,
      flushIntervalMs: int('flushIntervalMs', 5000, 100, 3_600_000),
      // The API takes at most 100 events per batch (spec 4.1).
      maxBatchSize: int('maxBatchSize', 50, 1, 100),
      bufferCapacity: int('bufferCapacity', 1000, 1, 100_000),
      budget: normalizeBudget(raw.budget as ServiceOptions['budget'], problems),
      serverFlags: raw.serverFlags !== false,
      serverBudget: raw.serverBudget !== false,
    },
    labels: {
      projectId:
        text('projectId') ?? text('SPENDGUARD_PROJECT_ID', envVar('SPENDGUARD_PROJECT_ID')) ?? 'default',
      environment,
      sessionId: text('sessionId'),
      featureId: text('featureId'),
    },
    provider,
    problems,
  };
}

/** `https://host[:port][/base]` without query, fragment or trailing slash; null when not http(s). */
export function parseBaseUrl(value: string): string | null {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) ? `${url.origin}${url.pathname}`.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}
