import { Logger } from '@aws-lambda-powertools/logger';
import { S3Client } from '@aws-sdk/client-s3';
import { REMOTE_DATA_JSON_URL } from '@pydantic/genai-prices';
import { createPriceRefreshHandler } from './handler';

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`environment variable ${name} is not set`);
  return v;
}

/** AWS entry: invoked weekly by EventBridge Scheduler (lib/prices.ts). */
export const handler = createPriceRefreshHandler({
  url: REMOTE_DATA_JSON_URL,
  fetch: (url, init) => fetch(url, init),
  s3: new S3Client({}),
  bucket: required('PRICES_BUCKET'),
  key: required('PRICES_KEY'),
  now: () => new Date(),
  logger: new Logger(),
});
