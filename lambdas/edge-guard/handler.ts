/**
 * Lambda@Edge entry (CloudFront origin-request, us-east-1). Configuration is baked in at build
 * (config.ts); the pepper is read once from Secrets Manager in its region and cached; flags are read
 * from the replica nearest to the edge region this container runs in.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SecretsManagerSecret } from '../shared/secrets';
import { createOriginRequestHandler } from './cloudfront-adapter';
import { bakedConfig, replicaRegionFor } from './config';
import { DynamoFlagSource } from './dynamo-flag-source';
import { EdgeGuard } from './guard';
import { EmfMetrics } from './metrics';

const metrics = new EmfMetrics({ service: 'edge-guard' });
let guard: EdgeGuard | undefined;

function buildGuard(): EdgeGuard {
  const config = bakedConfig();
  const region = replicaRegionFor(process.env.AWS_REGION, config);
  // Short timeouts and one retry: a slow replica must fail open quickly, not hold the request.
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region, maxAttempts: 2 }));
  const secret = new SecretsManagerSecret(
    new SecretsManagerClient({ region: config.pepperSecretRegion }),
    config.pepperSecretArn,
  );
  return new EdgeGuard({
    flags: new DynamoFlagSource(doc, config.flagsTableName),
    pepper: () => secret.get(),
    metrics,
    cacheTtlMs: config.cacheTtlMs,
    cacheMaxEntries: config.cacheMaxEntries,
    lookupTimeoutMs: config.lookupTimeoutMs,
    throttle: config.throttle,
  });
}

export const handler = createOriginRequestHandler(() => (guard ??= buildGuard()), metrics);
