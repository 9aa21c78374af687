import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { createTestApp, describeWithHandlers } from './test-helpers';

interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

function acknowledgementsUnder(root: IConstruct): Acknowledgement[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === 'aws:cdk:acknowledged-rules')
      .flatMap((m) => Object.entries(m.data as Record<string, string>))
      .map(([id, reason]) => ({ path: c.node.path, id, reason })),
  );
}

describeWithHandlers('cdk-nag AWS Solutions checks (whole app)', () => {
  let outdir: string;
  let error: unknown;
  let acknowledgements: Acknowledgement[];
  beforeAll(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'spendguard-nag-'));
    const { app } = createTestApp({ outdir });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    try {
      app.synth();
    } catch (err) {
      error = err;
    }
    acknowledgements = acknowledgementsUnder(app);
  });
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  it('synthesizes with no unacknowledged AwsSolutions error', () => {
    // On failure the message lists every finding with its construct path and the id to acknowledge.
    expect(error === undefined ? 'no findings' : String((error as Error).message)).toBe('no findings');
  });

  it('writes a validation report without a failed plugin', () => {
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ pluginName: string; conclusion: string }>;
    };
    expect(report.pluginReports.filter((r) => r.conclusion !== 'success')).toEqual([]);
  });

  it('does fail on a finding (control: an unacknowledged non-compliant bucket)', () => {
    const app = new App({
      outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'spendguard-nag-control-')),
      builtinCloudFormationValidation: false,
    });
    new s3.Bucket(new Stack(app, 'Control'), 'Plain');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-S10/);
    fs.rmSync(app.outdir, { recursive: true, force: true });
  });

  it('gives every acknowledgement a written reason', () => {
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const a of acknowledgements) {
      expect({ id: a.id, path: a.path, reasonLength: a.reason.trim().length > 20 }).toEqual({
        id: a.id,
        path: a.path,
        reasonLength: true,
      });
    }
  });

  it('acknowledges no blanket wildcard on a Spendguard function role except X-Ray’s Resource "*"', () => {
    const ownRoles = acknowledgements.filter((a) => /Support\/Role$/.test(a.path) && a.id.includes('IAM5'));
    const ids = [...new Set(ownRoles.map((a) => a.id.replace(/^\w+::/, '')))].sort();
    // Each a narrow prefix of one resource, or a service that accepts only "*".
    const expected = [
      'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      'AwsSolutions-IAM5[Resource::*]',
      expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<SpendguardPricesBucket\w+\.Arn>\/prices\/\*\]$/),
      expect.stringMatching(
        /^AwsSolutions-IAM5\[Resource::<SpendguardForecastRuns\w+\.Arn>\/org-lists\/\*\]$/,
      ),
      expect.stringMatching(
        /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<SpendguardForecastStateMachine\w+\.Name>:od-\*\]$/,
      ),
      // lib/reconciliation.ts: one admin-credential secret per organization and provider, under the stack's prefix.
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:Spendguard/reconciliation/*]',
      // lib/pipeline.ts: read-only GetInferenceProfile on the account's Bedrock application profiles (random ids).
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:application-inference-profile/*]',
    ];
    expect(ids).toHaveLength(expected.length);
    expect(ids).toEqual(expect.arrayContaining(expected));
  });
});

describeWithHandlers('cdk-nag AWS Solutions checks (home region us-east-1: one stack)', () => {
  it('synthesizes the single-stack shape (what `cdk synth` builds without a configured region) cleanly', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'spendguard-nag-use1-'));
    const { app } = createTestApp({ outdir, context: { region: 'us-east-1' } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const assembly = app.synth();
    // The guard lives in the home stack; the pepper needs no replica.
    expect(assembly.stacks.map((s) => s.stackName)).toEqual(['Spendguard']);
    fs.rmSync(outdir, { recursive: true, force: true });
  });
});

describeWithHandlers('cdk-nag AWS Solutions checks (every option on)', () => {
  it.each([
    ['eu-west-1', 'eu-west-1', {}],
    ['us-east-1 (one stack)', 'us-east-1', {}],
    ['eu-west-1, API WAF off', 'eu-west-1', { apiWaf: 'false' }],
  ])(
    'synthesizes cleanly with the WAF rule, optional MFA and a later generation: %s',
    (_label, region, extra) => {
      const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'spendguard-nag-options-'));
      const { app } = createTestApp({
        outdir,
        context: {
          region,
          proxyRateLimitPerIp: 2000,
          mfaRequired: 'false',
          resourceGeneration: 2,
          relayReservedConcurrency: 'none',
          originReadTimeoutSeconds: 180,
          ...extra,
        },
      });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      let error: unknown;
      try {
        app.synth();
      } catch (err) {
        error = err;
      }
      expect(error === undefined ? 'no findings' : String((error as Error).message)).toBe('no findings');
      fs.rmSync(outdir, { recursive: true, force: true });
    },
  );
});
