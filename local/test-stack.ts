/**
 * Test support only: the local stack as the whole-stack tests run it (in memory, on free ports, with the
 * mock providers, without the dashboard's files).
 */
import { startLocalStack, type LocalStack, type LocalStackOptions } from './stack';

/** Starts the local stack for a test; `options` add to or replace the defaults. */
export function startTestStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  return startLocalStack({
    memory: true,
    apiPort: 0,
    proxyPort: 0,
    mockProviders: true,
    dashboardDir: '/nonexistent',
    ...options,
  });
}
