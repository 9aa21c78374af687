/**
 * Least privilege: each function's role allows exactly the actions its handler uses, on exactly the
 * resources it touches (docs/data-model.md). An added grant fails here until it is listed on purpose.
 */
import fc from 'fast-check';
import { itemKeys } from '../lambdas/shared/item-keys';
import {
  describeWithHandlers,
  functionPermissions,
  idAt,
  synthSpendguard,
  type Synthesized,
} from './test-helpers';

/** Actions the Kinesis event source mapping needs to read the stream (granted by CDK). */
const STREAM_READ = [
  'DescribeStream',
  'DescribeStreamConsumer',
  'DescribeStreamSummary',
  'GetRecords',
  'GetShardIterator',
  'ListShards',
  'ListStreams',
  'SubscribeToShard',
];
/** Actions the mapping needs to send failed-batch records to its dead-letter queue. */
const DLQ_SEND = ['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'];
/** Read-only lookup of the account's Bedrock application inference profiles (docs/bedrock.md). */
const BEDROCK_PROFILES =
  'bedrock:GetInferenceProfile arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:application-inference-profile/*';

describeWithHandlers('least-privilege IAM', () => {
  let s: Synthesized;
  let arn: (path: string) => string;
  let ref: (path: string) => string;
  beforeAll(() => {
    s = synthSpendguard();
    arn = (path) => `<${idAt(s.template, path)}.Arn>`;
    ref = (path) => `<${idAt(s.template, path)}>`;
  });

  const data = () => arn('Data/Data');
  const flags = () => arn('Data/Flags');
  const pepper = () => `secretsmanager:GetSecretValue ${ref('Secrets/Pepper')}`;
  /** The origin secret: the relay's, and every API route function's while the API's WAF is on (default). */
  const originSecret = () => `secretsmanager:GetSecretValue ${ref('Secrets/OriginSecret')}`;
  const prices = () => `s3:GetObject ${arn('Prices/Bucket')}/prices/latest.json`;
  const sorted = (xs: string[]) => [...xs].sort();

  it('ingest: reads one API-key item (GetItem, no Query/Scan of the ledger), its flags (the enforcement block), puts records, reads the pepper', () => {
    expect(functionPermissions(s.template, 'Pipeline/Ingest')).toEqual(
      sorted([
        `dynamodb:GetItem ${data()}`,
        `dynamodb:Query ${flags()}`,
        `dynamodb:Query ${flags()}/index/byOrg`,
        `kinesis:PutRecords ${arn('Pipeline/Events')}`,
        pepper(),
        originSecret(),
      ]),
    );
  });

  it('pricing consumer: conditional puts (ledger) and updates (aggregates), the stream, its DLQ, the snapshot', () => {
    expect(functionPermissions(s.template, 'Pipeline/PricingConsumer')).toEqual(
      sorted([
        `dynamodb:PutItem ${data()}`,
        `dynamodb:UpdateItem ${data()}`,
        ...STREAM_READ.map((a) => `kinesis:${a} ${arn('Pipeline/Events')}`),
        ...DLQ_SEND.map((a) => `sqs:${a} ${arn('Pipeline/PricingDeadLetters')}`),
        prices(),
        BEDROCK_PROFILES,
      ]),
    );
  });

  it('guardrail consumer: org state and trips, flags of the org, notifications, the stream, its DLQ', () => {
    const key = arn('Observability/TopicKey');
    expect(functionPermissions(s.template, 'Pipeline/GuardrailConsumer')).toEqual(
      sorted([
        `dynamodb:GetItem ${data()}`,
        `dynamodb:PutItem ${data()}`,
        `dynamodb:Query ${data()}`,
        `dynamodb:Query ${data()}/index/gsi1`,
        `dynamodb:PutItem ${flags()}`,
        `dynamodb:Query ${flags()}`,
        `dynamodb:Query ${flags()}/index/byOrg`,
        `sns:Publish ${ref('Observability/Topic')}`,
        `kms:Decrypt ${key}`,
        `kms:GenerateDataKey* ${key}`,
        ...STREAM_READ.map((a) => `kinesis:${a} ${arn('Pipeline/Events')}`),
        ...DLQ_SEND.map((a) => `sqs:${a} ${arn('Pipeline/GuardrailDeadLetters')}`),
        pepper(),
        prices(),
        BEDROCK_PROFILES,
      ]),
    );
  });

  it('enforce: the caller’s key and its org’s keys, flags put / list / delete, the pepper; Data writes: audit and owner items only', () => {
    expect(functionPermissions(s.template, 'Api/Enforce')).toEqual(
      sorted([
        `dynamodb:GetItem ${data()}`,
        `dynamodb:PutItem ${data()}`, // conditioned on the partition key: see the LeadingKeys test below
        `dynamodb:UpdateItem ${data()}`, // Resume times and loop runs only (RESUME#, LOOPRUN#), same test
        `dynamodb:Query ${data()}`,
        `dynamodb:Query ${data()}/index/gsi1`,
        `dynamodb:PutItem ${flags()}`,
        `dynamodb:DeleteItem ${flags()}`,
        `dynamodb:Query ${flags()}`,
        `dynamodb:Query ${flags()}/index/byOrg`,
        pepper(),
        originSecret(),
      ]),
    );
  });

  it('api: reads and writes its org’s items (no DeleteItem, no Scan), lists flags, copies org flags onto a new key, starts forecast runs', () => {
    const stateMachine = idAt(s.template, 'Forecast/StateMachine');
    expect(functionPermissions(s.template, 'Api/Api')).toEqual(
      sorted([
        `dynamodb:GetItem ${data()}`,
        `dynamodb:PutItem ${data()}`,
        `dynamodb:UpdateItem ${data()}`,
        `dynamodb:Query ${data()}`,
        `dynamodb:Query ${data()}/index/gsi1`,
        `dynamodb:PutItem ${flags()}`,
        `dynamodb:Query ${flags()}`,
        `dynamodb:Query ${flags()}/index/byOrg`,
        pepper(),
        originSecret(),
        prices(),
        // Reconciliation (lib/reconciliation.ts): admin credentials under the stack's prefix, notifications.
        ...['CreateSecret', 'DeleteSecret', 'DescribeSecret', 'PutSecretValue', 'RestoreSecret'].map(
          (a) =>
            `secretsmanager:${a} arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:Spendguard/reconciliation/*`,
        ),
        `sns:Publish <${idAt(s.template, 'Observability/Topic')}>`,
        `kms:Decrypt ${arn('Observability/TopicKey')}`,
        `kms:GenerateDataKey* ${arn('Observability/TopicKey')}`,
        // POST /v1/forecast/run and GET /v1/forecast/runs/{runId}: on-demand (od-*) executions only.
        `states:DescribeExecution arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<${stateMachine}.Name>:od-*`,
        `states:StartExecution <${stateMachine}>`,
        // POST /v1/reconciliation/run: the reconciliation function reads the credentials, not the API.
        `lambda:InvokeFunction ${arn('Reconciliation/Function')}`,
      ]),
    );
  });

  it.each([
    // The relay updates the budget counter only (its own partition: BUDGET#ORG#<orgId>), never puts, and
    // cannot write the organization's config, rates or profile (ORG#<orgId>), API keys (KEY#…), ledger
    // entries (ORG#…#LEDGER) or any other partition's items (see the pattern test below).
    ['Edge/Relay', [['dynamodb:UpdateItem', ['BUDGET#ORG#*', 'LOOPRUN#ORG#*']]]],
    [
      'Api/Enforce',
      [
        ['dynamodb:PutItem', ['ORG#*#AUDIT', 'ORG#*#OWNER']],
        ['dynamodb:UpdateItem', ['RESUME#ORG#*', 'LOOPRUN#ORG#*']],
      ],
    ],
  ] as const)('%s: Data writes limited by partition key (dynamodb:LeadingKeys %j)', (fn, grants) => {
    const roleId = idAt(s.template, `${fn}Support/Role`);
    const policies = Object.values(s.template.findResources('AWS::IAM::Policy')) as Array<{
      Properties: {
        Roles: Array<{ Ref: string }>;
        PolicyDocument: {
          Statement: Array<{ Action: string | string[]; Resource: unknown; Condition?: unknown }>;
        };
      };
    }>;
    const puts = policies
      .filter((p) => p.Properties.Roles.some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st) => [st.Action].flat().some((a) => a === 'dynamodb:PutItem' || a === 'dynamodb:UpdateItem'))
      .filter((st) => JSON.stringify(st.Resource).includes(idAt(s.template, 'Data/Data')));
    expect(puts).toEqual(
      grants.map(([action, partitions]) =>
        expect.objectContaining({
          Action: action,
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions } },
        }),
      ),
    );
  });

  it("relay: its write pattern matches the budget counter's partition and no other, whatever the organization id", () => {
    const relayRole = idAt(s.template, 'Edge/RelaySupport/Role');
    const patterns = (
      Object.values(s.template.findResources('AWS::IAM::Policy')) as Array<{
        Properties: {
          Roles: Array<{ Ref: string }>;
          PolicyDocument: {
            Statement: Array<{
              Condition?: { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } };
            }>;
          };
        };
      }>
    )
      .filter((p) => p.Properties.Roles.some((r) => r.Ref === relayRole))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .flatMap((st) => st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []);
    expect(patterns.length).toBeGreaterThan(0);
    // IAM's StringLike: `*` any run of characters, `?` one character, everything else literal.
    const matches = (value: string) =>
      patterns.some((p) =>
        new RegExp(
          `^${p
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
          's',
        ).test(value),
      );
    const orgIds = fc.oneof(
      fc.stringMatching(/^org_[A-Za-z0-9_-]{1,20}$/),
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.constantFrom('x#BUDGET', 'BUDGET', '#', '*', 'a#BUDGET#ORG#b'),
    );
    fc.assert(
      fc.property(orgIds, fc.string({ minLength: 1, maxLength: 12 }), (orgId, other) => {
        expect(matches(itemKeys.budgetCounter(orgId).pk)).toBe(true);
        const elsewhere = [
          itemKeys.config(orgId).pk, // also the profile, rates, guardrail state, forecast and holder counts
          itemKeys.legacyBudgetCounter(orgId).pk,
          itemKeys.apiKey(other).pk,
          itemKeys.leaseHolder(orgId, other).pk,
          itemKeys.ledgerPk(orgId),
          itemKeys.aggregatePk(orgId),
          itemKeys.tripsPk(orgId),
          itemKeys.auditPk(orgId),
          itemKeys.owner(orgId).pk,
          itemKeys.eventClaim(orgId, other, `evt_${other}`, 'pricing').pk,
        ];
        for (const pk of elsewhere) expect({ pk, writable: matches(pk) }).toEqual({ pk, writable: false });
      }),
      { numRuns: 300 },
    );
  });

  it('relay: key lookup, budget lease items, kill flags (read), one event per request, the pepper, the origin secret and the price snapshot', () => {
    expect(functionPermissions(s.template, 'Edge/Relay')).toEqual(
      sorted([
        `dynamodb:BatchGetItem ${flags()}`,
        prices(), // admission prices as the ledger does (issue 18.2)
        `dynamodb:GetItem ${data()}`,
        `dynamodb:UpdateItem ${data()}`, // conditioned on the partition key: see the LeadingKeys test above
        `dynamodb:Query ${data()}`,
        `dynamodb:Query ${data()}/index/gsi1`,
        `kinesis:PutRecords ${arn('Pipeline/Events')}`,
        pepper(),
        originSecret(),
      ]),
    );
  });

  it('forecast: organization list and aggregates (Query), config (GetItem), forecast (PutItem), the run’s list to S3; nothing else', () => {
    expect(functionPermissions(s.template, 'Forecast/Function')).toEqual(
      sorted([
        `dynamodb:GetItem ${data()}`,
        `dynamodb:PutItem ${data()}`,
        `dynamodb:Query ${data()}`,
        `dynamodb:Query ${data()}/index/gsi1`,
        `s3:PutObject ${arn('Forecast/Runs')}/org-lists/*`,
      ]),
    );
  });

  it.each([
    ['Pipeline/Ingest'],
    ['Pipeline/PricingConsumer'],
    ['Pipeline/GuardrailConsumer'],
    ['Api/Enforce'],
    ['Api/Api'],
    ['Edge/Relay'],
    ['Forecast/Function'],
    ['Reconciliation/Function'],
    ['Prices/Refresh'],
  ])('%s writes only its own log group and X-Ray traces; no managed policies', (fn) => {
    const supportPath = `${fn}Support`;
    const logs = `<${idAt(s.template, `${supportPath}/LogGroup`)}.Arn>`;
    const all = functionPermissions(s.template, fn, { all: true });
    expect(all.filter((p) => p.startsWith('logs:') || p.startsWith('xray:'))).toEqual(
      sorted([
        `logs:CreateLogStream ${logs}`,
        `logs:PutLogEvents ${logs}`,
        'xray:PutTelemetryRecords *',
        'xray:PutTraceSegments *',
      ]),
    );
    const role = s.template.toJSON().Resources[idAt(s.template, `${supportPath}/Role`)] as {
      Properties: { ManagedPolicyArns?: unknown };
    };
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});
