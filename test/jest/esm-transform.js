/**
 * Middy 6 ships ESM files behind a `require` export (Node 20.19+ can require ESM; Jest cannot), and
 * `@noble/hashes` 2 (bundled into the SDK) is ESM only, so Jest runs them through esbuild into CommonJS.
 */
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const out = transformSync(source, {
      loader: 'js',
      format: 'cjs',
      target: 'node20',
      sourcefile: filename,
    });
    return { code: out.code };
  },
};
