/**
 * `npm run cost-estimate`: the monthly AWS bill of one Spendguard deployment for a small and a large
 * organization, by service, from AWS's published on-demand unit prices (below, us-east-1, USD, without
 * free tiers) and the usage each request causes in this code. docs/deploy.md ("Costs") holds this
 * script's output; scripts/cost-estimate.test.ts keeps the two equal.
 *
 * Prices change and differ by region: this is an order-of-magnitude planning aid, not a quote.
 */

/** AWS's published unit prices (us-east-1, on-demand, USD), as listed on each service's pricing page. */
export const UNIT_PRICES = {
  /** Lambda: per request, and per GB-second on Arm (Graviton). */
  lambdaRequest: 0.2 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  /** Lambda@Edge: per request, and per GB-second (x86). */
  edgeRequest: 0.6 / 1e6,
  edgeGbSecond: 0.00005001,
  /** CloudFront: HTTPS requests (North America / Europe), data out to the internet (first 10 TB), data to origin. */
  cloudFrontHttpsRequest: 0.01 / 10_000,
  cloudFrontDataOutPerGb: 0.085,
  cloudFrontToOriginPerGb: 0.02,
  /** API Gateway HTTP API: per request (first 300 million). */
  httpApiRequest: 1.0 / 1e6,
  /** Kinesis Data Streams on demand: per stream-hour, per GB written, per GB read (each consumer). */
  kinesisStreamHour: 0.04,
  kinesisIngestPerGb: 0.08,
  kinesisRetrievalPerGb: 0.04,
  /** DynamoDB on demand: per write request unit, per read request unit, per GB-month stored, PITR per GB-month. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoStoragePerGbMonth: 0.25,
  dynamoPitrPerGbMonth: 0.2,
  /** Step Functions: Standard per state transition; Express per request and per GB-second. */
  sfnStandardTransition: 0.025 / 1000,
  sfnExpressRequest: 1.0 / 1e6,
  sfnExpressGbSecond: 0.00001667,
  /** CloudWatch: logs ingested per GB, a standard alarm per month, a dashboard per month. */
  logsIngestPerGb: 0.5,
  alarmMonth: 0.1,
  dashboardMonth: 3.0,
  /** Secrets Manager: per secret (and replica) per month, per 10,000 API calls. */
  secretMonth: 0.4,
  secretApiCall: 0.05 / 10_000,
  /** KMS: per customer-managed key per month. */
  kmsKeyMonth: 1.0,
  /** Cognito Essentials: per monthly active user beyond the 10,000 included. */
  cognitoMauAbove10k: 0.015,
  /** AWS WAF: per web ACL per month, per rule (an AWS managed rule group counts as one) per month, per request. */
  wafAclMonth: 5.0,
  wafRuleMonth: 1.0,
  wafRequest: 0.6 / 1e6,
} as const;

/** What one deployment's organization does in a month. */
export interface Workload {
  readonly name: string;
  /** Model calls through the proxy. */
  readonly proxyCallsPerMonth: number;
  /** Average wall time of a proxied call (the relay is billed for the whole upstream wait). */
  readonly averageCallSeconds: number;
  /** Average response size through CloudFront (streamed or not), and request body size. */
  readonly averageResponseKb: number;
  readonly averageRequestKb: number;
  /** Events the SDK sends directly (not through the proxy), and events per ingest request. */
  readonly sdkEventsPerMonth: number;
  readonly eventsPerIngestRequest: number;
  /** People using the dashboard, and API reads they cause. */
  readonly dashboardUsers: number;
  readonly apiReadsPerMonth: number;
  /** With the proxy's optional WAF rate rule. */
  readonly waf: boolean;
  /** With the API's WAF (default on): API requests also pass CloudFront and a web ACL of three rules. */
  readonly apiWaf: boolean;
}

export const WORKLOADS: readonly Workload[] = [
  {
    name: 'Small organization',
    proxyCallsPerMonth: 100_000,
    averageCallSeconds: 4,
    averageResponseKb: 4,
    averageRequestKb: 8,
    sdkEventsPerMonth: 200_000,
    eventsPerIngestRequest: 20,
    dashboardUsers: 5,
    apiReadsPerMonth: 20_000,
    waf: false,
    apiWaf: true,
  },
  {
    name: 'Large organization',
    proxyCallsPerMonth: 20_000_000,
    averageCallSeconds: 6,
    averageResponseKb: 6,
    averageRequestKb: 24,
    sdkEventsPerMonth: 50_000_000,
    eventsPerIngestRequest: 50,
    dashboardUsers: 200,
    apiReadsPerMonth: 2_000_000,
    waf: true,
    apiWaf: true,
  },
];

/** The deployment's shape as lib/ builds it (memory sizes, replicas, fixed resources). */
export const DEPLOYMENT = {
  hoursPerMonth: 730,
  relayMemoryGb: 1,
  edgeMemoryGb: 0.25,
  /** The guard's billed time per request (a cached flag lookup; a DynamoDB read on a miss). */
  edgeSeconds: 0.01,
  ingestMemoryGb: 0.5,
  ingestSeconds: 0.05,
  consumerMemoryGb: 1,
  /** Per consumer invocation, and records per invocation (batching window 1 s, batch ≤ 50). */
  consumerSeconds: 0.15,
  recordsPerConsumerInvocation: 10,
  apiMemoryGb: 1,
  apiSeconds: 0.1,
  /** One event record on the stream, and one ledger entry. */
  eventRecordKb: 1,
  ledgerEntryKb: 1,
  /** DynamoDB units per event: ledger put + aggregate updates (hour, day, month, model, provider…) + guardrail state. */
  writeUnitsPerEvent: 9,
  readUnitsPerEvent: 2,
  /** Per proxied call: the relay's key lookup (eventually consistent, cached 30 s: about one in ten calls reads). */
  readUnitsPerProxyCall: 0.1,
  /** The forecast: one run an hour, one organization: Load + map run ≈ 6 transitions, one Express child. */
  forecastTransitionsPerRun: 6,
  forecastSecondsPerOrg: 1,
  forecastMemoryGb: 1.769,
  /** Powertools logs per consumer, ingest and API invocation. */
  logKbPerInvocation: 1,
  /** Fixed: alarms, secrets (pepper + its us-east-1 replica + origin secret), the topic's KMS key. */
  alarms: 18,
  secrets: 3,
  kmsKeys: 1,
  /** The API's web ACL: a per-IP rate rule and two AWS managed rule groups (lib/api-waf.ts). */
  apiWafRules: 3,
  /** Average API response through the API's distribution. */
  apiResponseKb: 1,
  /** Flags replicas besides the home table (cdk.json's replicaRegions less the home region). */
  flagReplicaRegions: 2,
} as const;

export type Service =
  | 'Lambda (relay)'
  | 'Lambda (ingest, consumers, API, forecast)'
  | 'Lambda@Edge (guard)'
  | 'CloudFront'
  | 'API Gateway'
  | 'Kinesis'
  | 'DynamoDB'
  | 'Step Functions'
  | 'CloudWatch'
  | 'Secrets Manager, KMS, Cognito'
  | 'AWS WAF';

/** Monthly USD by service for one workload. */
export function estimate(w: Workload, p = UNIT_PRICES, d = DEPLOYMENT): Record<Service, number> {
  const GB = 1024 * 1024; // KB per GB
  const calls = w.proxyCallsPerMonth;
  const events = calls + w.sdkEventsPerMonth;
  const ingestRequests = Math.ceil(w.sdkEventsPerMonth / w.eventsPerIngestRequest);
  const consumerInvocations = 2 * Math.ceil(events / d.recordsPerConsumerInvocation);
  const forecastRuns = d.hoursPerMonth;
  const lambda = (invocations: number, gb: number, seconds: number) =>
    invocations * p.lambdaRequest + invocations * gb * seconds * p.lambdaArmGbSecond;
  const otherInvocations = ingestRequests + consumerInvocations + w.apiReadsPerMonth;
  const streamKb = (calls + w.sdkEventsPerMonth) * d.eventRecordKb;
  // Requests through the API's distribution (its WAF on): every ingest request and API read.
  const apiFrontRequests = w.apiWaf ? ingestRequests + w.apiReadsPerMonth : 0;
  return {
    'Lambda (relay)': lambda(calls, d.relayMemoryGb, w.averageCallSeconds),
    'Lambda (ingest, consumers, API, forecast)':
      lambda(ingestRequests, d.ingestMemoryGb, d.ingestSeconds) +
      lambda(consumerInvocations, d.consumerMemoryGb, d.consumerSeconds) +
      lambda(w.apiReadsPerMonth, d.apiMemoryGb, d.apiSeconds) +
      lambda(2 * forecastRuns, d.forecastMemoryGb, d.forecastSecondsPerOrg),
    'Lambda@Edge (guard)': calls * p.edgeRequest + calls * d.edgeMemoryGb * d.edgeSeconds * p.edgeGbSecond,
    CloudFront:
      calls * p.cloudFrontHttpsRequest +
      ((calls * w.averageResponseKb) / GB) * p.cloudFrontDataOutPerGb +
      ((calls * w.averageRequestKb) / GB) * p.cloudFrontToOriginPerGb +
      apiFrontRequests * p.cloudFrontHttpsRequest +
      ((apiFrontRequests * d.apiResponseKb) / GB) * p.cloudFrontDataOutPerGb,
    'API Gateway': (ingestRequests + w.apiReadsPerMonth) * p.httpApiRequest,
    Kinesis:
      d.hoursPerMonth * p.kinesisStreamHour +
      (streamKb / GB) * p.kinesisIngestPerGb +
      2 * (streamKb / GB) * p.kinesisRetrievalPerGb,
    DynamoDB:
      events * d.writeUnitsPerEvent * p.dynamoWriteUnit +
      (events * d.readUnitsPerEvent + calls * d.readUnitsPerProxyCall) * p.dynamoReadUnit +
      ((events * d.ledgerEntryKb) / GB) * (p.dynamoStoragePerGbMonth + p.dynamoPitrPerGbMonth),
    'Step Functions':
      forecastRuns * d.forecastTransitionsPerRun * p.sfnStandardTransition +
      forecastRuns * p.sfnExpressRequest +
      forecastRuns * 0.064 * d.forecastSecondsPerOrg * p.sfnExpressGbSecond,
    CloudWatch:
      ((otherInvocations * d.logKbPerInvocation) / GB) * p.logsIngestPerGb +
      d.alarms * p.alarmMonth +
      p.dashboardMonth,
    'Secrets Manager, KMS, Cognito':
      d.secrets * p.secretMonth +
      // Secret reads: one per cold start; taken as one per 1,000 invocations.
      ((calls + otherInvocations) / 1000) * p.secretApiCall +
      d.kmsKeys * p.kmsKeyMonth +
      Math.max(0, w.dashboardUsers - 10_000) * p.cognitoMauAbove10k,
    'AWS WAF':
      (w.waf ? p.wafAclMonth + p.wafRuleMonth + calls * p.wafRequest : 0) +
      (w.apiWaf ? p.wafAclMonth + d.apiWafRules * p.wafRuleMonth + apiFrontRequests * p.wafRequest : 0),
  };
}

const usd = (n: number): string =>
  n >= 100 ? `$${Math.round(n).toLocaleString('en-US')}` : `$${n.toFixed(2)}`;
const count = (n: number): string => n.toLocaleString('en-US');

/** The Markdown the docs hold: one table, a column per workload, a row per service, the total last. */
export function renderCostTable(workloads: readonly Workload[] = WORKLOADS): string {
  const estimates = workloads.map((w) => estimate(w));
  const services = Object.keys(estimates[0] ?? {}) as Service[];
  const lines = [
    `| service | ${workloads.map((w) => w.name).join(' | ')} |`,
    `| --- | ${workloads.map(() => '---:').join(' | ')} |`,
    `| _proxied calls / month_ | ${workloads.map((w) => count(w.proxyCallsPerMonth)).join(' | ')} |`,
    `| _SDK events / month_ | ${workloads.map((w) => count(w.sdkEventsPerMonth)).join(' | ')} |`,
    `| _average call (s)_ | ${workloads.map((w) => String(w.averageCallSeconds)).join(' | ')} |`,
    `| _proxy WAF rate rule_ | ${workloads.map((w) => (w.waf ? 'on' : 'off')).join(' | ')} |`,
    `| _API WAF_ | ${workloads.map((w) => (w.apiWaf ? 'on' : 'off')).join(' | ')} |`,
    ...services.map((s) => `| ${s} | ${estimates.map((e) => usd(e[s])).join(' | ')} |`),
    `| **Total per month** | ${estimates
      .map((e) => `**${usd(Object.values(e).reduce((a, b) => a + b, 0))}**`)
      .join(' | ')} |`,
  ];
  return lines.join('\n');
}

if (require.main === module) {
  process.stdout.write(`${renderCostTable()}\n`);
}
