import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { getDefaultPriceRegistry } from '../../core/pricing';
import { loadBundledProviders } from '../../core/pricing/bundled-data';
import { createPriceSource, type PriceSourceLogger } from './price-source';

const s3Mock = mockClient(S3Client);
const VALID_SNAPSHOT = JSON.stringify(loadBundledProviders());
const HOUR = 60 * 60 * 1000;

/** A GetObject output whose body is `text` (the SDK's stream mixin, reduced to what the source uses). */
const objectWith = (text: string, etag = '"v1"') =>
  ({ ETag: etag, Body: { transformToString: () => Promise.resolve(text) } }) as never;

const quietLogger = (): PriceSourceLogger & { warn: jest.Mock } => ({ warn: jest.fn() });

beforeEach(() => s3Mock.reset());

describe('createPriceSource', () => {
  it('uses the bundled data when no bucket is configured, without calling S3', async () => {
    // Prepare
    const prices = createPriceSource({ s3: new S3Client({}), bucket: undefined });
    // Act
    const registry = await prices();
    // Assess
    expect(registry).toBe(getDefaultPriceRegistry());
    expect(registry.origin).toBe('bundled');
    expect(s3Mock.calls()).toHaveLength(0);
  });

  it('builds the registry from a valid snapshot', async () => {
    s3Mock.on(GetObjectCommand).resolves(objectWith(VALID_SNAPSHOT));
    const logger = quietLogger();
    const prices = createPriceSource({
      s3: new S3Client({}),
      bucket: 'prices',
      key: 'prices/latest.json',
      logger,
    });

    const registry = await prices();

    expect(registry.origin).toBe('snapshot');
    expect(registry.resolve('openai', 'gpt-4o').costSource).toBe('PROVIDER_REGISTRY');
    expect(s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'prices',
      Key: 'prices/latest.json',
    });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('falls back to the bundled data, with a warning, when the snapshot is invalid', async () => {
    s3Mock
      .on(GetObjectCommand)
      .resolves(objectWith(JSON.stringify([{ id: 'openai', name: 'OpenAI', models: [] }])));
    const logger = quietLogger();
    const prices = createPriceSource({ s3: new S3Client({}), bucket: 'prices', logger });

    const registry = await prices();

    expect(registry).toBe(getDefaultPriceRegistry());
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]?.[0]).toMatch(/invalid price snapshot/);
  });

  it('falls back to the bundled data when S3 fails', async () => {
    s3Mock.on(GetObjectCommand).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }));
    const logger = quietLogger();
    const prices = createPriceSource({ s3: new S3Client({}), bucket: 'prices', logger });

    await expect(prices()).resolves.toBe(getDefaultPriceRegistry());
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('reuses the registry until the refresh interval has passed, then loads again', async () => {
    let clock = 1_000_000;
    s3Mock
      .on(GetObjectCommand)
      .resolvesOnce(objectWith(VALID_SNAPSHOT, '"v1"'))
      .resolves(objectWith('not json', '"v2"'));
    const logger = quietLogger();
    const prices = createPriceSource({ s3: new S3Client({}), bucket: 'prices', now: () => clock, logger });

    const first = await prices();
    clock += HOUR - 1;
    const beforeTtl = await prices();
    clock += 1;
    const afterTtl = await prices();

    expect(first.origin).toBe('snapshot');
    expect(beforeTtl).toBe(first);
    expect(s3Mock.commandCalls(GetObjectCommand)).toHaveLength(2);
    // The refresh asks only for a changed object, and a bad new snapshot keeps the last good one.
    expect(s3Mock.commandCalls(GetObjectCommand)[1]?.args[0].input.IfNoneMatch).toBe('"v1"');
    expect(afterTtl).toBe(first);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('keeps the registry without recompiling when the snapshot is unchanged (304)', async () => {
    let clock = 0;
    s3Mock
      .on(GetObjectCommand)
      .resolvesOnce(objectWith(VALID_SNAPSHOT))
      .rejects(
        Object.assign(new Error('Not Modified'), { name: 'NotModified', $metadata: { httpStatusCode: 304 } }),
      );
    const logger = quietLogger();
    const prices = createPriceSource({ s3: new S3Client({}), bucket: 'prices', now: () => clock, logger });

    const first = await prices();
    clock += HOUR;
    const second = await prices();

    expect(second).toBe(first);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('shares one load between concurrent callers', async () => {
    s3Mock.on(GetObjectCommand).resolves(objectWith(VALID_SNAPSHOT));
    const prices = createPriceSource({ s3: new S3Client({}), bucket: 'prices', logger: quietLogger() });

    const [a, b] = await Promise.all([prices(), prices()]);

    expect(a).toBe(b);
    expect(s3Mock.commandCalls(GetObjectCommand)).toHaveLength(1);
  });
});
