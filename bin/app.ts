#!/usr/bin/env node
/**
 * The CDK app: `npx cdk synth --all` / `npx cdk deploy --all`. Configuration comes from cdk.json's
 * context or `-c key=value` (see readSpendguardContext in lib/spendguard-stack.ts and docs/deploy.md).
 * cdk-nag's AWS Solutions checks run on every synth; `-c nag=false` turns them off.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createSpendguardApp } from '../lib/spendguard-stack';

const app = new App();
createSpendguardApp(app);
if (app.node.tryGetContext('nag') !== false && app.node.tryGetContext('nag') !== 'false') {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}
