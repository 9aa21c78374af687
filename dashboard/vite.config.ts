/// <reference types="vitest/config" />
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** The local stack (`npm start`): API, local issuer and config.json on one port. */
const LOCAL_STACK = (process.env.SPENDGUARD_LOCAL_URL ?? 'http://127.0.0.1:8787').replace(/\/$/, '');

/**
 * `npm run dev` only: answers `GET /config.json` (the runtime configuration the built app fetches next to
 * index.html). With SPENDGUARD_DASHBOARD_CONFIG=<file> it serves that file as is; otherwise it fetches the
 * local stack's config.json (a fresh local ID token each time) and points `apiUrl` at the dev server
 * itself, which proxies /v1 and /api to the stack — the stack sends no CORS headers. The production build
 * contains no config.json.
 */
function devRuntimeConfig(): Plugin {
  return {
    name: 'spendguard-dev-runtime-config',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use('/config.json', (_req, res) => {
        const send = (status: number, body: string): void => {
          res.statusCode = status;
          res.setHeader('content-type', 'application/json; charset=utf-8');
          res.setHeader('cache-control', 'no-store');
          res.end(body);
        };
        const file = process.env.SPENDGUARD_DASHBOARD_CONFIG;
        const load = file
          ? readFile(resolve(file), 'utf8')
          : fetch(`${LOCAL_STACK}/config.json`)
              .then((r) => r.json() as Promise<Record<string, unknown>>)
              .then((config) => JSON.stringify({ ...config, apiUrl: '' }));
        load.then(
          (body) => send(200, body),
          (err: unknown) =>
            send(
              502,
              JSON.stringify({ error: { code: 'dev_config', message: `config.json: ${String(err)}` } }),
            ),
        );
      });
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the same build is served from any path (local stack, S3 + CloudFront).
  base: './',
  plugins: [react(), devRuntimeConfig()],
  server: {
    proxy: {
      '/v1': LOCAL_STACK,
      '/api': LOCAL_STACK,
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 900,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    env: { TZ: 'UTC' },
    restoreMocks: true,
    // Chart-heavy pages render slowly in jsdom on a busy 2-core machine.
    testTimeout: 20_000,
  },
});
