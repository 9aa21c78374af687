import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { EDGE_BUNDLE_BUDGET_BYTES } from './edge';
import { nearestReplicaMap } from './regions';
import { createTestApp, describeWithHandlers, TEST_CONTEXT } from './test-helpers';

/** Lambda@Edge quotas: viewer triggers 1 MB zipped, origin triggers (ours) 50 MB zipped. */
const ORIGIN_REQUEST_LIMIT_BYTES = 50 * 1024 * 1024;

describeWithHandlers('edge guard bundle (bundled with esbuild, the only bundling test)', () => {
  let bundleDir: string;
  let code: string;
  let outdir: string;
  beforeAll(() => {
    // Prepare: bundle only the us-east-1 stack (the regional functions stay unbundled: fast).
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'spendguard-edge-bundle-'));
    const { app } = createTestApp({ bundleStacks: [`${TEST_CONTEXT.stackName}-edge`], outdir });
    const assembly = app.synth();
    const manifest = JSON.parse(
      fs.readFileSync(path.join(assembly.directory, `${TEST_CONTEXT.stackName}-edge.assets.json`), 'utf8'),
    ) as { files: Record<string, { source: { path: string; packaging?: string } }> };
    // The directory assets: the guard's code, and the handler of CDK's LogRetention (its regional logs).
    const dirs = Object.values(manifest.files)
      .filter((f) => f.source.packaging === 'zip')
      .map((f) => path.resolve(assembly.directory, f.source.path))
      .filter((dir) => dir.startsWith(assembly.directory));
    expect(dirs).toHaveLength(1);
    bundleDir = dirs[0] ?? '';
    code = fs.readFileSync(path.join(bundleDir, 'index.js'), 'utf8');
  });
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  it('is one minified index.js well within Lambda@Edge limits (asserted under 1 MB unzipped)', () => {
    const files = fs.readdirSync(bundleDir);
    expect(files).toEqual(['index.js']);
    const bytes = Buffer.byteLength(code);
    expect(bytes).toBeLessThan(EDGE_BUNDLE_BUDGET_BYTES);
    // deflate is the zip archive's compression
    expect(deflateRawSync(code).length).toBeLessThan(ORIGIN_REQUEST_LIMIT_BYTES);
  });

  it('has the configuration baked in (table, replica map, pepper name, us-east-1, cache lifetime)', () => {
    expect(code).not.toMatch(/typeof __SPENDGUARD_CONFIG__/);
    expect(code).toContain('"Spendguard-Flags"');
    expect(code).toContain('"Spendguard/pepper"');
    expect(code).toMatch(/pepperSecretRegion:\s*"us-east-1"/);
    expect(code).toMatch(/cacheTtlMs:\s*1e3|cacheTtlMs:\s*1000/);
    // The nearest replica of, e.g., Frankfurt is Ireland (the home region).
    expect(nearestReplicaMap(['eu-west-1', 'us-east-1', 'ap-northeast-1'])['eu-central-1']).toBe('eu-west-1');
    expect(code).toMatch(/"eu-central-1":\s*"eu-west-1"/);
  });

  it('exports the handler CloudFront invokes (index.handler)', () => {
    const mod: { exports: Record<string, unknown> } = { exports: {} };
    // Evaluate without running AWS calls: building the guard happens on the first request only.
    new Function('module', 'exports', 'require', code)(mod, mod.exports, require);
    expect(typeof mod.exports.handler).toBe('function');
  });
});
