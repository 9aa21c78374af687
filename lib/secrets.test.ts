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
      Description: 'Spendguard origin secret: the header CloudFront adds to relay requests.',
      GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true },
    });
  });

  it('passes the secrets by ARN: the pepper to every function using the services, the origin secret to the relay only', () => {
    const fns = Object.values(s.template.findResources('AWS::Lambda::Function')) as Array<{
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }>;
    const withOrigin = fns.filter(
      (f) => f.Properties.Environment?.Variables?.ORIGIN_SECRET_ARN !== undefined,
    );
    expect(withOrigin).toHaveLength(1);
    expect(withOrigin[0]?.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME).toBe('relay');
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
