/**
 * The price registry a function prices with: the latest weekly snapshot from S3 (written by
 * `lambdas/price-refresh`), loaded at cold start and again every `refreshMs`, with the data bundled
 * in `@pydantic/genai-prices` as the fallback whenever no snapshot is configured or usable.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getDefaultPriceRegistry, loadPriceRegistry, type PriceRegistry } from '../../core/pricing';

/** Where warnings go (Powertools' Logger fits; `console` by default). */
export interface PriceSourceLogger {
  warn(message: string, ...extra: unknown[]): void;
}

/** Options of {@link createPriceSource}. */
export interface PriceSourceOptions {
  /** The S3 client. Without one (or without `bucket`) the bundled data is used. */
  readonly s3?: Pick<S3Client, 'send'>;
  /** Bucket of the snapshots (`PRICES_BUCKET`). @default - none: the bundled data */
  readonly bucket?: string;
  /** Key of the snapshot in force (`PRICES_KEY`). @default 'prices/latest.json' */
  readonly key?: string;
  /** How long a loaded snapshot is used before S3 is asked again. @default 3_600_000 (1 hour) */
  readonly refreshMs?: number;
  /** How long after a failed load the next attempt waits. @default min(refreshMs, 60_000) */
  readonly retryMs?: number;
  /** The clock, in epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** @default console */
  readonly logger?: PriceSourceLogger;
}

export const DEFAULT_PRICES_KEY = 'prices/latest.json';
export const DEFAULT_PRICE_REFRESH_MS = 60 * 60 * 1000;

interface Loaded {
  readonly registry: PriceRegistry;
  /** ETag of the snapshot the registry was built from (unchanged snapshots are not recompiled). */
  readonly etag: string | undefined;
  /** When to ask S3 again. */
  readonly nextCheckAt: number;
}

/** S3 answers a conditional GET of an unchanged object with 304 (an error in SDK v3). */
function isNotModified(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NotModified' || e?.$metadata?.httpStatusCode === 304;
}

/**
 * A function returning the registry in force. It never rejects: without a bucket it always returns
 * the bundled registry; with one, a missing, unreadable or invalid snapshot yields the previous good
 * snapshot's registry if there is one, else the bundled one, and a warning. Concurrent callers share
 * one load. An unchanged snapshot (same ETag) is not downloaded or compiled again.
 *
 * @example
 * const prices = createPriceSource({ s3: new S3Client({}), bucket: process.env.PRICES_BUCKET });
 * const registry = await prices(); // cold start: loads prices/latest.json, or the bundled data
 * calculateCost(input, registry);
 */
export function createPriceSource(options: PriceSourceOptions = {}): () => Promise<PriceRegistry> {
  const { s3, bucket } = options;
  if (s3 === undefined || bucket === undefined || bucket === '') {
    return () => Promise.resolve(getDefaultPriceRegistry());
  }
  const key = options.key || DEFAULT_PRICES_KEY;
  const refreshMs = options.refreshMs ?? DEFAULT_PRICE_REFRESH_MS;
  const retryMs = options.retryMs ?? Math.min(refreshMs, 60_000);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? console;

  let loaded: Loaded | undefined;
  /** The last registry built from a valid snapshot (kept when a later refresh fails). */
  let lastGood: Loaded | undefined;
  let pending: Promise<PriceRegistry> | undefined;

  const fallback = (reason: string, err?: unknown): PriceRegistry => {
    const registry = lastGood?.registry ?? getDefaultPriceRegistry();
    logger.warn(
      `price snapshot s3://${bucket}/${key} not used: ${reason}; pricing with the ${registry.origin} data`,
      {
        error: err instanceof Error ? err.message : err,
      },
    );
    loaded = { registry, etag: lastGood?.etag, nextCheckAt: now() + retryMs };
    return registry;
  };

  const load = async (): Promise<PriceRegistry> => {
    let text: string | undefined;
    let etag: string | undefined;
    try {
      const out = await s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: lastGood?.etag }),
      );
      etag = out.ETag;
      text = await out.Body?.transformToString('utf8');
    } catch (err) {
      if (isNotModified(err) && lastGood !== undefined) {
        loaded = { ...lastGood, nextCheckAt: now() + refreshMs };
        return lastGood.registry;
      }
      return fallback('cannot read it', err);
    }
    if (text === undefined || text === '') return fallback('the object is empty');
    const result = loadPriceRegistry(text);
    if (result.snapshotError !== undefined) return fallback(result.snapshotError);
    lastGood = { registry: result.registry, etag, nextCheckAt: now() + refreshMs };
    loaded = lastGood;
    return result.registry;
  };

  return () => {
    if (loaded !== undefined && now() < loaded.nextCheckAt) return Promise.resolve(loaded.registry);
    pending ??= load()
      .catch((err: unknown) => fallback('unexpected error', err))
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
