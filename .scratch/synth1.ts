import './stub-entries';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createSpendguardApp } from '../lib/spendguard-stack';
const cdkJson = require('../cdk.json');
const t0 = Date.now();
const nag = process.argv.includes('--nag');
const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] }, outdir: '/tmp/cdkout1' });
createSpendguardApp(app);
if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
try {
  const asm = app.synth();
  console.log('synth ms', Date.now() - t0, asm.stacks.map((s) => s.stackName));
} catch (e) { console.log(String((e as Error).message).slice(0, 20000)); }
