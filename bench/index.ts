/**
 * `npm run bench [name…]`: runs every bench/<name>.bench.ts in turn (or only those named).
 * Each bench module's default export is an async function that prints its own table
 * of measured numbers beside the targets its issue names.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
    .sort();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `Spendguard benchmarks — ${cpu}, ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`,
  );
  for (const f of files) {
    console.log(`\n=== ${f.replace('.bench.ts', '')} ===`);
    const mod = (await import(join(__dirname, f))) as { default: () => Promise<void> };
    await mod.default();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
