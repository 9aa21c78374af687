/**
 * Option validation. Invalid values never throw: each is replaced by its default and reported in
 * `problems` (logged when `debug` is true).
 */
import { getProvider } from '../../core/providers/catalog';
import { normalizeBudget, type NormalizedBudget } from './budget';
import { envVar } from './runtime';
import type { Environment, ServiceOptions, WrapFetchOptions } from './types';

export const DEFAULT_FLUSH_INTERVAL_MS = 5000;
export const DEFAULT_MAX_BATCH_SIZE = 50;
export const DEFAULT_BUFFER_CAPACITY = 1000;
/** The API accepts at most 100 events per batch (spec 4.1). */
export const MAX_BATCH_SIZE = 100;
const MIN_FLUSH_INTERVAL_MS = 100;
const MAX_FLUSH_INTERVAL_MS = 3_600_000;
const MAX_BUFFER_CAPACITY = 100_000;
const MAX_LABEL_LENGTH = 256;

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

function asRecord(value: unknown): Raw {
  return typeof value === 'object' && value !== null ? (value as Raw) : {};
}

/** Validates options (of any type: a wrong type counts as no options). Never throws. */
export function normalizeOptions(options: ServiceOptions | WrapFetchOptions | undefined): NormalizedOptions {
  const problems: string[] = [];
  let raw: Raw;
  try {
    raw = { ...asRecord(options) };
  } catch {
    raw = {};
    problems.push('options could not be read; using defaults');
  }
  if (options !== undefined && options !== null && typeof options !== 'object') {
    problems.push('options must be an object; using defaults');
  }
  const apiKey = text(raw, 'apiKey', problems) ?? envVar('SPENDGUARD_API_KEY') ?? null;
  const endpoint = endpointOf(raw, problems);
  const config: ClientConfig = {
    apiKey,
    endpoint,
    debug: raw.debug === true,
    flushIntervalMs: integer(raw, 'flushIntervalMs', DEFAULT_FLUSH_INTERVAL_MS, MIN_FLUSH_INTERVAL_MS, MAX_FLUSH_INTERVAL_MS, problems),
    maxBatchSize: integer(raw, 'maxBatchSize', DEFAULT_MAX_BATCH_SIZE, 1, MAX_BATCH_SIZE, problems),
    bufferCapacity: integer(raw, 'bufferCapacity', DEFAULT_BUFFER_CAPACITY, 1, MAX_BUFFER_CAPACITY, problems),
    budget: normalizeBudget(raw.budget as ServiceOptions['budget'], problems),
    serverFlags: raw.serverFlags !== false,
  };
  const labels: Labels = {
    projectId:
      label(raw, 'projectId', problems) ??
      label({ projectId: envVar('SPENDGUARD_PROJECT_ID') }, 'projectId', problems) ??
      'default',
    environment: environmentOf(raw, problems),
    sessionId: label(raw, 'sessionId', problems),
    featureId: label(raw, 'featureId', problems),
  };
  let provider: string | undefined;
  if (raw.provider !== undefined) {
    const id = typeof raw.provider === 'string' ? raw.provider.trim().toLowerCase() : '';
    if (getProvider(id) !== undefined) provider = id;
    else problems.push(`provider ${JSON.stringify(raw.provider)} is not a known provider id; detecting from the URL`);
  }
  return { config, labels, provider, problems };
}

function text(raw: Raw, name: string, problems: string[]): string | undefined {
  const value = raw[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim().length === 0) {
    problems.push(`${name} must be a non-empty string; ignored`);
    return undefined;
  }
  return value.trim();
}

// eslint-disable-next-line no-control-regex -- labels must be printable (the wire schema refuses control characters)
const CONTROL_CHARS = /[\x00-\x1f\x7f]/g;

function label(raw: Raw, name: string, problems: string[]): string | undefined {
  let value = text(raw, name, problems);
  if (value === undefined) return undefined;
  if (value.replace(CONTROL_CHARS, '') !== value) {
    problems.push(`${name} contains control characters; removed`);
    value = value.replace(CONTROL_CHARS, '');
    if (value.length === 0) return undefined;
  }
  if (value.length > MAX_LABEL_LENGTH) {
    problems.push(`${name} is longer than ${MAX_LABEL_LENGTH} characters; truncated`);
    return value.slice(0, MAX_LABEL_LENGTH);
  }
  return value;
}

function integer(raw: Raw, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const value = raw[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    problems.push(`${name} must be a number; using ${fallback}`);
    return fallback;
  }
  const clamped = Math.min(max, Math.max(min, Math.floor(value)));
  if (clamped !== value) problems.push(`${name} must be an integer in [${min}, ${max}]; using ${clamped}`);
  return clamped;
}

/** A base URL (http or https), without trailing slashes; from the option, else `SPENDGUARD_ENDPOINT`. */
function endpointOf(raw: Raw, problems: string[]): string | null {
  const given = text(raw, 'endpoint', problems);
  const candidate = given ?? envVar('SPENDGUARD_ENDPOINT');
  if (candidate === undefined) return null;
  const parsed = parseBaseUrl(candidate);
  if (parsed === null) problems.push('endpoint must be an http(s) URL; telemetry is not sent');
  return parsed;
}

/** `https://host[:port][/base]` without query, fragment or trailing slash; null when not http(s). */
export function parseBaseUrl(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

function environmentOf(raw: Raw, problems: string[]): Environment {
  const value = raw.environment;
  if (value === 'production' || value === 'staging' || value === 'development') return value;
  if (value !== undefined) problems.push(`environment must be 'production', 'staging' or 'development'`);
  const fromEnv = envVar('SPENDGUARD_ENVIRONMENT') ?? envVar('NODE_ENV');
  if (fromEnv === 'staging') return 'staging';
  if (fromEnv === 'development' || fromEnv === 'dev' || fromEnv === 'test') return 'development';
  return 'production';
}
