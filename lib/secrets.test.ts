import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

describeWithHandlers('SpendguardSecrets', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthSpendguard();
  });

  it('generates the pepper (64 chars, fixed name, replicated to us-east-1 for the edge guard) and retains it', () => {
    const pepper = resource(s.template, idAt(s.template, 'Secrets/Pepper')) as unknown as {
      Properties: Record<string, unknown>;
      DeletionPolicy: string;
    };
    expect(pepper.Properties).toMatchObject({
      Name: 'Spendguard/pepper',
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
      ReplicaRegions: [{ Region: 'us-east-1' }],
    });
    expect(pepper.DeletionPolicy).toBe('Retain');
  });

  it('generates the origin secret with a generated name and no replica', () => {
    expect(resource(s.template, idAt(s.template, 'Secrets/OriginSecret')).Properties).toEqual({
      Description: 'Spendguard origin secret: the header CloudFront adds to relay and API requests.',
      GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true },
    });
  });

  it('passes the secrets by ARN: the pepper to every function using the services, the origin secret to the relay and the API’s functions', () => {
    const fns = Object.values(s.template.findResources('AWS::Lambda::Function')) as Array<{
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }>;
    const withOrigin = fns.filter(
      (f) => f.Properties.Environment?.Variables?.ORIGIN_SECRET_ARN !== undefined,
    );
    // The relay (behind the proxy) and every function behind an API route (the API's WAF is on by default).
    expect(
      withOrigin.map((f) => f.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME).sort(),
    ).toEqual(['api', 'enforce', 'ingest', 'relay']);
    const withPepper = fns.filter(
      (f) => f.Properties.Environment?.Variables?.PEPPER_SECRET_ARN !== undefined,
    );
    expect(
      withPepper.map((f) => f.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME).sort(),
    ).toEqual(
      [
        'api',
        'enforce',
        'forecast',
        'guardrail-consumer',
        'ingest',
        'pricing-consumer',
        'reconciliation',
        'relay',
      ].sort(),
    );
  });
});
