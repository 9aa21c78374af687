/**
 * The local runtime: embedded stand-ins for the AWS services Spendguard uses, and the adapters that
 * drive the same Lambda handlers locally. See docs/local-runtime.md.
 */
export {
  type LocalAwsClients,
  type LocalEndpoints,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  createLocalAwsClients,
  createLocalDocumentClient,
  createLocalDynamoDbClient,
  createLocalKinesisClient,
} from './clients';
export {
  type CheckpointStore,
  createFileCheckpointStore,
  createMemoryCheckpointStore,
} from './checkpoint-store';
export {
  BatchItemFailureError,
  InvalidOptionsError,
  LocalRuntimeError,
  PollerStoppedError,
  ProvisioningTimeoutError,
  ResourceDriftError,
  StandInsNotReadyError,
} from './errors';
export {
  API_GATEWAY_MAX_PAYLOAD_BYTES,
  type GatewayMethod,
  type GatewayRoute,
  type HttpGateway,
  type HttpGatewayOptions,
  type JwtRouteHandler,
  type JwtVerifierLike,
  type PublicRouteHandler,
  type RawRoute,
  startHttpGateway,
} from './http-gateway';
export {
  type DeadLetterHandler,
  type KinesisBatchHandler,
  type KinesisPoller,
  type KinesisPollerOptions,
  startKinesisPoller,
} from './kinesis-poller';
export { LOCAL_ACCOUNT_ID, type LambdaContextOptions, createLambdaContext } from './lambda-context';
export {
  type IdTokenRequest,
  type LocalIdTokenVerifier,
  type LocalIssuer,
  type LocalIssuerOptions,
  type RenewingIdToken,
  LOCAL_DASHBOARD_TOKEN_TTL_SECONDS,
  createLocalIssuer,
  renewingIdToken,
} from './local-issuer';
export { allowedHosts, hostAllowed } from './loopback-host';
export { type RuntimeLogger, createConsoleLogger, silentLogger } from './logger';
export {
  type LocalProvisioning,
  type LocalResourceNames,
  type ProvisionOptions,
  type StreamProvisioning,
  type TableProvisioning,
  ensureStream,
  ensureTable,
  provisionLocalResources,
  toCreateTableInput,
} from './provision';
export { type ReadinessOptions, waitForStandIns } from './readiness';
export { type StandIns, type StandInsOptions, type StandInStorage, startStandIns } from './stand-ins';
export { type StaticSite, type StaticSiteOptions, contentTypeFor, createStaticSite } from './static-site';
