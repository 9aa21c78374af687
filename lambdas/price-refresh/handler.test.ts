import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { REMOTE_DATA_JSON_URL } from '@pydantic/genai-prices';
import { mockClient } from 'aws-sdk-client-mock';
import { loadBundledProviders } from '../../core/pricing/bundled-data';
import { createPriceRefreshHandler, datedKeyFor, PriceRefreshError } from './handler';

const s3Mock = mockClient(S3Client);
const VALID = JSON.stringify(loadBundledProviders());
const AT = new Date('2026-11-23T06:00:00Z');

const handlerWith = (fetchImpl: jest.Mock) =>
  createPriceRefreshHandler({
    url: REMOTE_DATA_JSON_URL,
    fetch: fetchImpl,
    s3: new S3Client({}),
    bucket: 'prices-bucket',
    key: 'prices/latest.json',
    now: () => AT,
    logger: { info: jest.fn() },
  });

const respond = (body: string, status = 200) => jest.fn().mockResolvedValue(new Response(body, { status }));

beforeEach(() => {
  s3Mock.reset();
  s3Mock.on(PutObjectCommand).resolves({});
});

describe('price-refresh handler', () => {
  it('fetches genai-prices data, validates it and stores a dated copy, then latest.json', async () => {
    // Prepare
    const fetchMock = respond(VALID);
    // Act
    const result = await handlerWith(fetchMock)();
    // Assess
    expect(fetchMock).toHaveBeenCalledWith(REMOTE_DATA_JSON_URL, expect.anything());
    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(puts.map((p) => p.Key)).toEqual(['prices/2026-11-23.json', 'prices/latest.json']);
    expect(puts.every((p) => p.Bucket === 'prices-bucket' && p.Body === VALID)).toBe(true);
    expect(puts[0]?.ContentType).toBe('application/json');
    expect(result).toMatchObject({ key: 'prices/latest.json', datedKey: 'prices/2026-11-23.json' });
    expect(result.models).toBeGreaterThanOrEqual(100);
  });

  it.each([
    [
      'a truncated dataset (no anthropic, too few models)',
      JSON.stringify([{ id: 'openai', name: 'OpenAI', models: [] }]),
    ],
    ['text that is not JSON', '<html>rate limited</html>'],
    ['a JSON object instead of the provider list', '{"providers": []}'],
  ])('rejects %s and writes nothing', async (_name, body) => {
    await expect(handlerWith(respond(body))()).rejects.toThrow(PriceRefreshError);
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('rejects an HTTP error and writes nothing', async () => {
    await expect(handlerWith(respond('oops', 503))()).rejects.toThrow(/HTTP 503/);
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('rejects a network failure and writes nothing', async () => {
    const fetchMock = jest.fn().mockRejectedValue(new TypeError('fetch failed'));
    await expect(handlerWith(fetchMock)()).rejects.toThrow(/cannot fetch/);
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('names the dated copy after the UTC date, next to the latest key', () => {
    expect(datedKeyFor('prices/latest.json', new Date('2026-01-05T23:59:59Z'))).toBe(
      'prices/2026-01-05.json',
    );
    expect(datedKeyFor('latest.json', AT)).toBe('2026-11-23.json');
  });
});
