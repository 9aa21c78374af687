/**
 * The Bedrock reconciliation setting through the real API handler on real stores: admins only, one
 * organization per AWS account (409 for a second), `configured` reports it, DELETE releases the
 * account, every change audited, bad bodies answered 400 naming the field.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLambdaContext, createLocalIssuer, type LocalIssuer } from '../../../local/runtime';
import {
  startBackendHarness,
  type BackendHarness,
  UNUSED_FORECAST_RUNS,
} from '../../../test/backend-harness';
import { deploymentRegion } from '../../shared/deployment-region';
import { createApiHandler } from '../handler';

let h: BackendHarness;
let issuer: LocalIssuer;
let alice: string;
let bob: string;
let viewer: string;

beforeAll(async () => {
  h = await startBackendHarness();
  issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  alice = await issuer.issueIdToken({ sub: 'alice', email: 'a@example.com', orgId: 'org_bed_a' });
  bob = await issuer.issueIdToken({ sub: 'bob', email: 'b@example.com', orgId: 'org_bed_b' });
  viewer = await issuer.issueIdToken({
    sub: 'vic',
    email: 'v@example.com',
    orgId: 'org_bed_a',
    extraClaims: { 'cognito:groups': ['viewer'] },
  });
});
afterAll(() => h.close());

const ctx = createLambdaContext({ functionName: 'api' });

async function call(routeKey: string, token: string, body?: unknown, provider?: string) {
  const verifier = issuer.createVerifier();
  const handler = createApiHandler({
    services: h.services,
    idTokens: { verify: async (t) => (await verifier.verify(t)) as Record<string, unknown> },
    registry: h.registry,
    logger: h.logger,
    forecastRuns: UNUSED_FORECAST_RUNS,
    version: 'test',
  });
  const event = {
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1]!.replace('{provider}', provider ?? ''),
    rawQueryString: '',
    headers: { authorization: `Bearer ${token}` },
    ...(provider ? { pathParameters: { provider } } : {}),
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
  } as APIGatewayProxyEventV2;
  const res = (await handler(event, ctx)) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, unknown> };
}

const bedrockOf = (body: Record<string, unknown>) =>
  (body.providers as Array<{ provider: string }>).find((p) => p.provider === 'bedrock');

describe('PUT /v1/reconciliation/credentials for bedrock', () => {
  it('claims the account for the first organization; a second is refused with 409 until it is released', async () => {
    const put = await call('PUT /v1/reconciliation/credentials', alice, {
      provider: 'bedrock',
      regions: ['us-east-1', 'eu-west-1'],
    });
    expect(put.status).toBe(200);
    expect(bedrockOf(put.body)).toEqual({
      provider: 'bedrock',
      configured: true,
      regions: ['us-east-1', 'eu-west-1'],
    });

    const refused = await call('PUT /v1/reconciliation/credentials', bob, { provider: 'bedrock' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: { code: 'conflict', message: expect.stringMatching(/another organization/) },
    });
    expect(bedrockOf((await call('GET /v1/reconciliation/credentials', bob)).body)).toEqual({
      provider: 'bedrock',
      configured: false,
    });
    expect(await h.services.bedrockReconciliation.ownerOf(h.services.awsAccountId)).toBe('org_bed_a');

    // Storing again (other regions) keeps the claim.
    const again = await call('PUT /v1/reconciliation/credentials', alice, { provider: 'bedrock' });
    expect(bedrockOf(again.body)).toEqual({
      provider: 'bedrock',
      configured: true,
      regions: [deploymentRegion()],
    });

    const del = await call('DELETE /v1/reconciliation/credentials/{provider}', alice, undefined, 'bedrock');
    expect([del.status, bedrockOf(del.body)]).toEqual([200, { provider: 'bedrock', configured: false }]);
    expect(await h.services.bedrockReconciliation.ownerOf(h.services.awsAccountId)).toBeUndefined();

    const taken = await call('PUT /v1/reconciliation/credentials', bob, {
      provider: 'bedrock',
      regions: ['us-west-2'],
    });
    expect([taken.status, bedrockOf(taken.body)]).toEqual([
      200,
      { provider: 'bedrock', configured: true, regions: ['us-west-2'] },
    ]);
    expect(await h.services.bedrockReconciliation.ownerOf(h.services.awsAccountId)).toBe('org_bed_b');
    // Deleting in an organization that holds nothing leaves the other's claim alone.
    await call('DELETE /v1/reconciliation/credentials/{provider}', alice, undefined, 'bedrock');
    expect(await h.services.bedrockReconciliation.ownerOf(h.services.awsAccountId)).toBe('org_bed_b');

    // Entries of one frozen clock: compared as a set (the log orders same-time entries by id).
    const audit = await h.services.audit.list('org_bed_a', { limit: 10, cursor: null }, h.services.now());
    const entries = audit.entries
      .filter((e) => e.target === 'bedrock')
      .map((e) => [e.action, e.before, e.after]);
    const expected = [
      [
        'credentials.stored',
        { configured: false },
        { configured: true, regions: ['us-east-1', 'eu-west-1'] },
      ],
      [
        'credentials.stored',
        { configured: true, regions: ['us-east-1', 'eu-west-1'] },
        { configured: true, regions: [] },
      ],
      ['credentials.deleted', { configured: true, regions: [] }, { configured: false }],
      ['credentials.deleted', { configured: false }, { configured: false }],
    ];
    const bySet = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
    expect(bySet(entries)).toEqual(bySet(expected));
  });

  it('answers 400 naming the field for a bad region, a key, a role ARN or a duplicate; viewers get 403', async () => {
    const bad = async (body: unknown) => {
      const res = await call('PUT /v1/reconciliation/credentials', alice, body);
      expect(res.status).toBe(400);
      return (res.body.error as { problems: Array<{ path: string }> }).problems.map((p) => p.path);
    };
    expect(await bad({ provider: 'bedrock', regions: ['mars-north-1x'] })).toEqual(['regions[0]']);
    expect(await bad({ provider: 'bedrock', regions: [] })).toEqual(['regions']);
    expect(await bad({ provider: 'bedrock', regions: ['us-east-1', 'us-east-1'] })).toEqual(['regions']);
    expect((await bad({ provider: 'bedrock', adminKey: 'sk-admin-123456' })).length).toBe(1);
    expect((await bad({ provider: 'bedrock', roleArn: 'arn:aws:iam::123456789012:role/x' })).length).toBe(1);
    expect((await call('PUT /v1/reconciliation/credentials', viewer, { provider: 'bedrock' })).status).toBe(
      403,
    );
    expect(bedrockOf((await call('GET /v1/reconciliation/credentials', alice)).body)).toEqual({
      provider: 'bedrock',
      configured: false,
    });
  });
});
