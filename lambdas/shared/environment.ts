import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CognitoJwtVerifier } from 'aws-jwt-verify';
import type { PriceRegistry } from '../../core/pricing';
import { SnsNotifier, WebhookNotifier } from './notifier';
import { createPriceSource } from './price-source';
import { SecretsManagerSecret } from './secrets';
import { SecretsManagerAdminCredentialStore } from './stores/admin-credential-store';
import { createServices, type IdTokenVerifier, type Services } from './services';

/**
 * Wiring for AWS: everything a handler needs, built once per execution environment from the variables the
 * CDK sets (lib/function.ts). Handlers import these lazily so that tests and the local stack, which wire
 * their own, never need the variables.
 */
function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`environment variable ${name} is not set`);
  return v;
}

let services: Services | undefined;
export function servicesFromEnvironment(): Services {
  if (services) return services;
  const dynamo = new DynamoDBClient({});
  const doc = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const topic = process.env.NOTIFY_TOPIC_ARN;
  const credentialPrefix = process.env.RECONCILIATION_SECRET_PREFIX;
  services = createServices({
    doc,
    kinesis: new KinesisClient({}),
    dataTable: required('DATA_TABLE'),
    flagsTable: required('FLAGS_TABLE'),
    streamName: process.env.EVENTS_STREAM ?? '',
    pepper: new SecretsManagerSecret(new SecretsManagerClient({}), required('PEPPER_SECRET_ARN')),
    notifier: topic ? new SnsNotifier(new SNSClient({}), topic) : new WebhookNotifier(undefined),
    // Set by lib/reconciliation.ts on the API and reconciliation functions (Aws.ACCOUNT_ID).
    awsAccountId: process.env.RECONCILIATION_ACCOUNT_ID || undefined,
    ...(credentialPrefix
      ? {
          adminCredentials: new SecretsManagerAdminCredentialStore(
            new SecretsManagerClient({}),
            credentialPrefix,
          ),
        }
      : {}),
  });
  return services;
}

let verifier: IdTokenVerifier | undefined;
/** Cognito ID tokens: issuer (the user pool), audience (the app client), expiry, signature, token_use. */
export function idTokenVerifierFromEnvironment(): IdTokenVerifier {
  if (verifier) return verifier;
  const v = CognitoJwtVerifier.create({
    userPoolId: required('USER_POOL_ID'),
    clientId: required('USER_POOL_CLIENT_ID'),
    tokenUse: 'id',
  });
  verifier = { verify: async (token) => (await v.verify(token)) as unknown as Record<string, unknown> };
  return verifier;
}

let prices: (() => Promise<PriceRegistry>) | undefined;
/** The latest weekly price snapshot (S3) with the bundled data as fallback. */
export function priceRegistryFromEnvironment(): () => Promise<PriceRegistry> {
  prices ??= createPriceSource({
    s3: process.env.PRICES_BUCKET ? new S3Client({}) : undefined,
    bucket: process.env.PRICES_BUCKET,
    key: process.env.PRICES_KEY,
  });
  return prices;
}

export const logger = new Logger();
export const metrics = new Metrics();
