/**
 * The weekly price refresh (spec 1.3: PROVIDER_REGISTRY prices "refreshed weekly"): fetch
 * pydantic/genai-prices' data JSON, validate it with the same schema the consumers load it with, and
 * store it as `prices/<date>.json` and then `prices/latest.json`. A download that does not validate
 * writes nothing, so the snapshot in force stays; the failure surfaces as a function error (alarm).
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parsePriceSnapshot } from '../../core/pricing/snapshot-schema';

/** The refresh failed; nothing was written. */
export class PriceRefreshError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PriceRefreshError';
  }
}

/** A download larger than this is refused (the dataset is about 1 MB). */
export const MAX_SNAPSHOT_BYTES = 20 * 1024 * 1024;

export interface PriceRefreshDeps {
  /** The data JSON's URL (genai-prices' `REMOTE_DATA_JSON_URL`). */
  readonly url: string;
  readonly fetch: (url: string, init?: RequestInit) => Promise<Response>;
  readonly s3: Pick<S3Client, 'send'>;
  readonly bucket: string;
  /** Key of the snapshot in force; dated copies are written next to it. */
  readonly key: string;
  readonly now: () => Date;
  readonly logger: { info(message: string, ...extra: unknown[]): void };
  /** @default 30_000 */
  readonly timeoutMs?: number;
}

export interface PriceRefreshResult {
  readonly key: string;
  readonly datedKey: string;
  readonly providers: number;
  readonly models: number;
  readonly bytes: number;
}

/** `prices/latest.json` → `prices/2026-11-23.json` (UTC date of the refresh). */
export function datedKeyFor(key: string, at: Date): string {
  const slash = key.lastIndexOf('/');
  return `${key.slice(0, slash + 1)}${at.toISOString().slice(0, 10)}.json`;
}

export function createPriceRefreshHandler(deps: PriceRefreshDeps) {
  return async (): Promise<PriceRefreshResult> => {
    const at = deps.now();
    let response: Response;
    try {
      response = await deps.fetch(deps.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(deps.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new PriceRefreshError(`cannot fetch ${deps.url}: ${(err as Error).message}`, { cause: err });
    }
    if (!response.ok) throw new PriceRefreshError(`fetching ${deps.url} answered HTTP ${response.status}`);
    const text = await response.text();
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_SNAPSHOT_BYTES)
      throw new PriceRefreshError(`the price data is ${bytes} bytes, over the limit`);

    const parsed = parsePriceSnapshot(text);
    if (!parsed.ok) throw new PriceRefreshError(`rejected the fetched price data: ${parsed.error}`);

    const datedKey = datedKeyFor(deps.key, at);
    const put = (key: string) =>
      deps.s3.send(
        new PutObjectCommand({
          Bucket: deps.bucket,
          Key: key,
          Body: text,
          ContentType: 'application/json',
          Metadata: { source: deps.url, 'fetched-at': at.toISOString() },
        }),
      );
    // The dated copy first: latest.json always has a dated sibling to roll back to.
    await put(datedKey);
    await put(deps.key);
    const result = {
      key: deps.key,
      datedKey,
      providers: parsed.providers.length,
      models: parsed.providers.reduce((n, p) => n + p.models.length, 0),
      bytes,
    };
    deps.logger.info('price snapshot stored', result);
    return result;
  };
}
