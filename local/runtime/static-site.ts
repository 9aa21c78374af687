/**
 * The S3 + CloudFront stand-in for the dashboard: serves its built files from a directory, with the
 * SPA fallback CloudFront is configured with (unknown routes without a file extension get index.html).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

/** Options of the gateway's `static` setting. */
export interface StaticSiteOptions {
  /** Directory with the built files (for example `dashboard/dist`). */
  readonly dir: string;
  /**
   * URL path the files are served under.
   * @default '/'
   */
  readonly prefix?: string;
  /**
   * Path prefixes that are never the site's (the API's `/v1/`, `/api/`): an unknown API path must get the
   * API's JSON 404, not the SPA's index.html. @default none
   */
  readonly excludePrefixes?: readonly string[];
}

/** Serves a request if it belongs to the site; `false` means "not mine", try the next handler. */
export type StaticSite = (
  request: IncomingMessage,
  response: ServerResponse,
  rawPath: string,
) => Promise<boolean>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** Content type for a file name, `application/octet-stream` when unknown. */
export function contentTypeFor(fileName: string): string {
  return CONTENT_TYPES[extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Creates the static site handler.
 *
 * - GET and HEAD only; anything else is "not mine".
 * - `<prefix>/assets/…` (Vite's content-hashed output) is cached for a year; everything else,
 *   index.html above all, is revalidated so a rebuilt dashboard shows up on reload.
 * - A path without an extension that matches no file is an SPA route: index.html is served.
 * - Paths that escape `dir` (`..`, encoded or not) are refused.
 */
export function createStaticSite(options: StaticSiteOptions): StaticSite {
  const root = resolve(options.dir);
  const prefix = normalizePrefix(options.prefix ?? '/');

  return async (request, response, rawPath) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    if (options.excludePrefixes?.some((p) => rawPath.startsWith(p))) return false;
    if (rawPath !== prefix.slice(0, -1) && !rawPath.startsWith(prefix)) return false;

    let relative: string;
    try {
      relative = decodeURIComponent(rawPath.slice(prefix.length));
    } catch {
      return false;
    }
    const candidate = resolve(join(root, relative));
    if (candidate !== root && !candidate.startsWith(root + sep)) return false;

    const file = (await isFile(candidate))
      ? candidate
      : (await isFile(join(candidate, 'index.html')))
        ? join(candidate, 'index.html')
        : extname(relative) === '' && (await isFile(join(root, 'index.html')))
          ? join(root, 'index.html')
          : undefined;
    if (file === undefined) return false;

    const size = (await stat(file)).size;
    response.statusCode = 200;
    response.setHeader('content-type', contentTypeFor(file));
    response.setHeader('content-length', size);
    response.setHeader(
      'cache-control',
      file.startsWith(join(root, 'assets') + sep) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    if (request.method === 'HEAD') {
      response.end();
      return true;
    }
    await new Promise<void>((resolveSent, rejectSent) => {
      const stream = createReadStream(file);
      stream.on('error', rejectSent);
      response.on('finish', () => resolveSent());
      response.on('close', () => resolveSent());
      stream.pipe(response);
    });
    return true;
  };
}

function normalizePrefix(prefix: string): string {
  const withLeading = prefix.startsWith('/') ? prefix : `/${prefix}`;
  return withLeading.endsWith('/') ? withLeading : `${withLeading}/`;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
