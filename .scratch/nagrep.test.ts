import * as fs from 'node:fs';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createTestApp } from '../lib/test-helpers';
it('x', () => {
  const { app } = createTestApp({ outdir: '/tmp/nagrep' });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  console.log(fs.readFileSync('/tmp/nagrep/validation-report.json', 'utf8').slice(0, 3000));
});
