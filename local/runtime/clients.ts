/**
 * The real AWS SDK v3 clients, pointed at the stand-ins. Handlers receive exactly the clients they
 * would get in AWS, only with a different endpoint, fake credentials and a fixed region.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** The region every local client uses (the stand-ins ignore it, ARNs carry it). */
export const LOCAL_REGION = 'us-east-1';

/**
 * Static credentials for the stand-ins. They only check that a SigV4 signature is present, so any
 * value works; fixed values keep the SDK from searching the developer's real AWS profile.
 */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** Endpoints of the running stand-ins (what `startStandIns` returns). */
export interface LocalEndpoints {
  readonly dynamoEndpoint: string;
  readonly kinesisEndpoint: string;
}

/**
 * A request handler over HTTP/1.1 with keep-alive. The SDK creates (and on `destroy()` closes) the
 * agent from these options; reusing sockets keeps a local round trip well under a millisecond.
 * The connection timeout makes a hung stand-in fail instead of hanging a poller (a stopped one refuses
 * at once on loopback); 10 s, not less, because a loaded 2-core machine can take seconds to accept.
 * `SPENDGUARD_LOCAL_CONNECTION_TIMEOUT_MS` raises it where load is expected: the Jest setup sets 25 s
 * (test/jest/env.js), below Jest's 30 s test timeout so a hung stand-in still reports as such.
 */
function localRequestHandler(): NodeHttpHandler {
  return new NodeHttpHandler({
    httpAgent: { keepAlive: true, maxSockets: 64 },
    connectionTimeout: connectionTimeoutMs(process.env.SPENDGUARD_LOCAL_CONNECTION_TIMEOUT_MS),
  });
}

/** The connection timeout: a positive integer from the variable, else 10 s. */
export function connectionTimeoutMs(raw: string | undefined): number {
  const n = Number(raw);
  return raw !== undefined && Number.isInteger(n) && n > 0 ? n : 10_000;
}

/** A DynamoDB client for dynalite. */
export function createLocalDynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    requestHandler: localRequestHandler(),
  });
}

/**
 * A document client over `client`, dropping `undefined` attributes as the stores expect (optional
 * fields of domain objects are `undefined`, which the marshaller otherwise rejects).
 */
export function createLocalDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * A Kinesis client for kinesalite. The v3 Kinesis client defaults to the HTTP/2 handler for every
 * operation (SubscribeToShard needs HTTP/2 in AWS); kinesalite speaks HTTP/1.1 only and the default
 * client fails with "Protocol error", hence the explicit `NodeHttpHandler`. SubscribeToShard (enhanced
 * fan-out) does not exist in kinesalite; the poller uses GetRecords.
 */
export function createLocalKinesisClient(endpoint: string): KinesisClient {
  return new KinesisClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    requestHandler: localRequestHandler(),
  });
}

/** All local clients, created together and destroyed together. */
export interface LocalAwsClients {
  readonly dynamo: DynamoDBClient;
  readonly documentClient: DynamoDBDocumentClient;
  readonly kinesis: KinesisClient;
  /** Closes the keep-alive sockets; call before closing the stand-ins. */
  destroy(): void;
}

/**
 * Creates the clients for the stand-ins.
 *
 * @example
 * const standIns = await startStandIns({ memory: true });
 * const clients = createLocalAwsClients(standIns);
 * await clients.documentClient.send(new PutCommand({ TableName: 'spendguard-data', Item: { pk: 'a', sk: 'b' } }));
 * clients.destroy();
 * await standIns.close();
 */
export function createLocalAwsClients(endpoints: LocalEndpoints): LocalAwsClients {
  const dynamo = createLocalDynamoDbClient(endpoints.dynamoEndpoint);
  const documentClient = createLocalDocumentClient(dynamo);
  const kinesis = createLocalKinesisClient(endpoints.kinesisEndpoint);
  return {
    dynamo,
    documentClient,
    kinesis,
    destroy: () => {
      dynamo.destroy();
      kinesis.destroy();
    },
  };
}
