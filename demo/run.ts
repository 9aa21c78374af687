/**
 * `npm run demo [-- --keep]`: see demo/fleet.ts and docs/demo.md. Exits 0 when every runaway was
 * stopped by its own guardrail layer and no healthy agent was stopped, 1 otherwise.
 */
import { parseArgs } from 'node:util';
import { runDemo } from './fleet';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The demo must end by itself: a hard stop well before anyone wonders whether it hangs. */
const OVERALL_TIMEOUT_MS = 58_000;

const showCursor = () => {
  if (process.stdout.isTTY) process.stdout.write('\x1b[?25h');
};

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { keep: { type: 'boolean' } } });
  const keep = values.keep === true;
  const watchdog = setTimeout(() => {
    showCursor();
    process.stderr.write(`demo: no result after ${OVERALL_TIMEOUT_MS / 1000} s, giving up\n`);
    process.exit(2);
  }, OVERALL_TIMEOUT_MS);
  watchdog.unref();
  const restoreCursor = () => {
    showCursor();
    process.exit(130);
  };
  process.once('SIGINT', restoreCursor);

  const result = await runDemo({ keep });
  clearTimeout(watchdog);
  const code = result.ok ? 0 : 1;
  if (keep && result.stack) {
    const stack = result.stack;
    process.off('SIGINT', restoreCursor);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    process.stdout.write('\nstopping the stack…\n');
    await stack.stop();
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    showCursor();
    process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
