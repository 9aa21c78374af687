// Import circles, type-only imports and `export … from` included (issue 22.4): `npm run lint` fails on any.
// eslint-plugin-import-x's no-cycle skips `import type` edges and has no option to count them.
export default {
  files: [
    '{bench,bin,core,demo,lambdas,lib,local,scripts,test}/**/*.ts',
    'sdk/{src,test,scripts}/**/*.ts',
    'dashboard/src/**/*.{ts,tsx}',
    'dashboard/*.ts',
  ],
  exitCode: 'circular:1',
  tree: false,
  warning: false,
  progress: false,
};
