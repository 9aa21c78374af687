/**
 * docs/pricing.md stays true: its TypeScript snippets run against this module, and its fallback table
 * matches `fallback.ts`.
 */
import assertStrict from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import * as pricing from './index';

const doc = readFileSync(join(__dirname, '../../docs/pricing.md'), 'utf8');
/** The page with runs of spaces collapsed, so table padding (prettier aligns columns) does not matter. */
const flatDoc = doc.replace(/ {2,}/g, ' ');

const snippets = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

describe('docs/pricing.md', () => {
  it('has runnable snippets', () => {
    expect(snippets.length).toBeGreaterThan(0);
  });

  it.each(snippets.map((code, index) => [index + 1, code] as const))(
    'snippet %i runs and its assertions hold',
    (_n, code) => {
      // Prepare: compile the snippet as CommonJS, resolving '../core/pricing' to this module.
      const { outputText } = ts.transpileModule(code, {
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
        },
      });
      const modules: Readonly<Record<string, unknown>> = {
        '../core/pricing': pricing,
        'node:assert/strict': assertStrict,
      };
      const load = (id: string): unknown => {
        if (!(id in modules))
          throw new Error(`docs snippets may import only ${Object.keys(modules).join(', ')}`);
        return modules[id];
      };
      const run = new Function('require', 'exports', 'module', outputText) as (
        r: typeof load,
        e: object,
        m: { exports: object },
      ) => void;

      // Act + Assess: the snippet's own `assert` calls throw on a mismatch.
      expect(() => run(load, {}, { exports: {} })).not.toThrow();
    },
  );

  it.each(
    [...pricing.FALLBACK_FAMILIES, pricing.CATCH_ALL_FAMILY].map((family) => [family.id, family] as const),
  )('lists fallback family %s with its prices', (id, family) => {
    const usd = (picos: number): string => `$${pricing.picosToUsdPerMTok(picos)}`;
    const row = `| \`${id}\` | ${family.kind} | ${usd(family.price.base.input)} | ${usd(family.price.base.output)} | ${usd(family.price.base.cacheRead)} |`;

    expect(flatDoc).toContain(row);
  });

  it('states the premium threshold of the code', () => {
    expect(flatDoc).toContain(`at least $${pricing.PREMIUM_OUTPUT_USD_PER_MTOK} per million`);
  });

  it('has its benchmark numbers filled in', () => {
    expect(doc).not.toMatch(/BENCH_[A-Z]+/);
  });
});
