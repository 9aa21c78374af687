/// <reference types="vitest/config" />
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * `npm run dev` only: answers `GET /config.json` (the runtime configuration the built app fetches next to
 * index.html). With SPENDGUARD_DASHBOARD_CONFIG=<file> it serves that file; otherwise it forwards the
 * request to the local stack (SPENDGUARD_LOCAL_URL, default http://127.0.0.1:3000), which issues a
 * fresh local ID token each time. The production build contains no config.json.
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
        const upstream = `${(process.env.SPENDGUARD_LOCAL_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '')}/config.json`;
        const load = file ? readFile(resolve(file), 'utf8') : fetch(upstream).then((r) => r.text());
        load.then(
          (body) => send(200, body),
          (err: unknown) =>
            send(502, JSON.stringify({ error: { code: 'dev_config', message: `config.json: ${String(err)}` } })),
        );
      });
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the same build is served from any path (local stack, S3 + CloudFront).
  base: './',
  plugins: [react(), devRuntimeConfig()],
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
  },
});
