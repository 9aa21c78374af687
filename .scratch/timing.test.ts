it('timing', () => {
  let t = Date.now();
  require('aws-cdk-lib');
  const a = Date.now() - t; t = Date.now();
  require('../lib/spendguard-stack');
  const b = Date.now() - t; t = Date.now();
  const { synthSpendguard } = require('../lib/test-helpers');
  const c = Date.now() - t; t = Date.now();
  synthSpendguard();
  console.log({ core: a, lib: b, helpers: c, synth: Date.now() - t });
});
