import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildDefineFor, type EdgeGuardConfig } from './config';

/** The edge bundle has no environment: the config must arrive through esbuild's `define`. */
it('bakes the configuration into the bundle through esbuild define', async () => {
  // Prepare
  const define = esbuildDefineFor({
    flagsTableName: 'Spendguard-Flags',
    replicaRegions: { 'eu-central-1': 'eu-west-1' },
    homeRegion: 'us-east-1',
    pepperSecretArn: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:pepper-AbCdEf',
    cacheTtlMs: 750,
  });
  // Act
  const out = await build({
    entryPoints: [join(__dirname, 'config.ts')],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    define,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]?.text ?? '';
  const mod = { exports: {} as { bakedConfig: () => EdgeGuardConfig } };
  new Function('module', 'exports', 'require', code)(mod, mod.exports, require);
  // Assess
  expect(mod.exports.bakedConfig()).toMatchObject({
    flagsTableName: 'Spendguard-Flags',
    cacheTtlMs: 750,
    pepperSecretRegion: 'us-east-1',
    replicaRegions: { 'eu-central-1': 'eu-west-1' },
  });
});
