/**
 * The mock providers in a process of their own (`node --import tsx test/mock-providers-process.ts`):
 * prints one JSON line `{ "baseUrls": … }` when listening, and stops when stdin closes. Latency tests
 * use it so that the mock's own parsing of large bodies does not run on the proxy's event loop.
 */
import { startMockProviders } from '../local/mock-providers';

async function main(): Promise<void> {
  const mock = await startMockProviders({ port: 0 });
  process.stdout.write(JSON.stringify({ baseUrls: mock.baseUrls }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => {
    void mock.close().then(() => process.exit(0));
  });
}

void main();
