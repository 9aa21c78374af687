// Flat config: typescript-eslint's recommended rules over every TypeScript file.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'cdk.out/**',
      '.spendguard/**',
      'coverage/**',
      '.scratch/**',
      'test-output/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // No import circles (issue 22): a module graph with cycles has no order in which each file is whole.
    // This rule flags value imports in the editor; it skips `import type` edges, so `npm run lint` also
    // runs dpdm (dpdm.config.ts), which counts every edge.
    plugins: { 'import-x': importX },
    settings: {
      // Dependencies are parsed as TypeScript, else the rule sees no imports in them and no circle.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.tsx', '.d.ts', '.js', '.json'] }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The SDK ships minified (issue 22): esbuild shortens ES private names (`#reservedNanos` -> `#e`) but
    // ships a TypeScript `private` member's name whole, and `#` is private at run time too.
    files: ['sdk/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(PropertyDefinition, MethodDefinition, TSParameterProperty)[accessibility=/private|protected/]',
          message:
            'Use an ES private member (#name) in sdk/src: the bundle ships TypeScript private names whole.',
        },
      ],
    },
  },
);
