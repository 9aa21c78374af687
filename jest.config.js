/**
 * One Jest run for the whole repository (root, core, lambdas, local, lib, sdk).
 * ts-jest transpiles only (isolatedModules); type errors are caught by `npm run typecheck`,
 * which keeps the test run fast on a 2-core machine.
 * ts-jest 29 requires TypeScript < 7, hence typescript ~5.9 in package.json.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>'],
  testMatch: ['**/*.test.ts'],
  // The demo runs against its own wall-clock budget (a whole fleet in under a minute), so it runs alone
  // after the rest (`npm test` runs `jest`, then the demo test alone): beside two other heavy workers on
  // two cores its agents ran out of time.
  testPathIgnorePatterns: [
    '/node_modules/',
    '/dist/',
    '/cdk.out/',
    '/dashboard/',
    '/.spendguard/',
    ...(process.env.SPENDGUARD_JEST_SERIAL === '1' ? [] : ['<rootDir>/demo/']),
  ],
  // `import('./x.js')` names the TypeScript source `./x.ts` (node16 resolution wants the extension).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  modulePathIgnorePatterns: ['<rootDir>/cdk.out', '<rootDir>/sdk/dist', '<rootDir>/.spendguard'],
  transform: {
    // CommonJS output: the SDK's lazily loaded module (`import('./worst-case.js')`) becomes a require(),
    // which Jest's module registry runs without --experimental-vm-modules.
    '^.+\\.tsx?$': [
      'ts-jest',
      { tsconfig: { isolatedModules: true, module: 'commonjs' }, diagnostics: false },
    ],
    '/node_modules/(?:@middy|@noble/hashes)/.+\\.js$': '<rootDir>/test/jest/esm-transform.js',
    '/node_modules/@opentelemetry/otlp-exporter-base/.+\\.cjs$':
      '<rootDir>/test/jest/builtin-import-transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!@middy/|@noble/hashes/|@opentelemetry/otlp-exporter-base/)'],
  setupFiles: ['<rootDir>/test/jest/env.js'],
  testTimeout: 30000,
  // Jest's default is one worker per core less one: a single worker on a 2-core machine. Most suites
  // wait on I/O (the stand-ins, child processes, a browser), so 150 % of the cores halves the wall time
  // (measured on 2 cores: 268 s with 1 worker, 127 s with 3) and keeps `npm test` under 4 minutes.
  // A number, not '150%': that string in a config file was taken as 150 workers.
  maxWorkers: Math.ceil(require('node:os').availableParallelism() * 1.5),
};
