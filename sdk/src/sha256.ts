/**
 * SHA-256 of text, by the runtime's own implementation: the SDK carries no hash code of its own.
 *
 * Where the runtime has Node.js's `crypto` module (Node.js >= 20.16, AWS Lambda, Bun, Deno) the hash is
 * its `createHash`, synchronous, found at run time through `process.getBuiltinModule`: a static
 * `node:crypto` import would break the bundle in browsers and edge runtimes. Elsewhere (browsers, edge
 * runtimes, Node.js 20.0–20.15) it is WebCrypto's `crypto.subtle.digest`, a promise: the fingerprint is
 * hashed in the task that builds the event, after the call, so waiting for it delays only the event
 * (`flush()` waits for it), never the application's call. A runtime with neither (a browser page served
 * over plain http, where `crypto.subtle` is absent) records its events without a fingerprint.
 *
 * WebCrypto rather than a bundled JavaScript SHA-256 (`@noble/hashes`, 2.5 KB gzipped in the bundle, until
 * issue 22's size bound): both are maintained implementations, and the platform's costs no bytes.
 * Both hash the text's UTF-8 bytes, a lone surrogate as U+FFFD, as the server's core/fingerprint does
 * (`createHash(…).update(text, 'utf8')`).
 */

/** Hex SHA-256 of a string's UTF-8 bytes, synchronously. */
export type Sha256Hex = (text: string) => string;

/** Hex SHA-256 of a string's UTF-8 bytes, as a promise. */
export type Sha256HexAsync = (text: string) => Promise<string>;

/** The one piece of `node:crypto` used, typed here so that no Node.js type leaks into the bundle's API. */
interface BuiltinCrypto {
  createHash(algorithm: 'sha256'): {
    update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
  };
}

/** The one piece of WebCrypto used (the SDK's type check has no DOM library). */
interface WebCrypto {
  subtle?: { digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer> };
}

interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

/** The global object a hash is looked up in (tests pass their own). */
export interface HashRuntime {
  process?: unknown;
  crypto?: unknown;
}

/**
 * {@link Sha256Hex} through the runtime's built-in `crypto` module, or undefined when there is none
 * (browsers, edge runtimes, Node.js before 20.16). Never throws.
 */
export function builtinSha256Hex(runtime: HashRuntime = globalThis): Sha256Hex | undefined {
  try {
    const process = runtime.process as ProcessWithBuiltins | undefined;
    const crypto = process?.getBuiltinModule?.('crypto') as BuiltinCrypto | undefined;
    if (typeof crypto?.createHash !== 'function') return undefined;
    return (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * {@link Sha256HexAsync} through WebCrypto (`crypto.subtle.digest`), or undefined when the runtime has
 * none (an insecure browser context). Never throws; the promise rejects if the digest does.
 */
export function webCryptoSha256Hex(runtime: HashRuntime = globalThis): Sha256HexAsync | undefined {
  try {
    const subtle = (runtime.crypto as WebCrypto | undefined)?.subtle;
    if (typeof subtle?.digest !== 'function') return undefined;
    const encoder = new TextEncoder();
    return async (text) => {
      const digest = new Uint8Array(await subtle.digest('SHA-256', encoder.encode(text)));
      let hex = '';
      for (const byte of digest) hex += (byte < 16 ? '0' : '') + byte.toString(16);
      return hex;
    };
  } catch {
    return undefined;
  }
}

/** The hash the runtime offers: synchronous where it can be, else a promise, else none. */
export type RuntimeSha256 = Sha256Hex | Sha256HexAsync | null;

/** Picks {@link RuntimeSha256} for a runtime: node:crypto, else WebCrypto, else null. */
export function runtimeSha256(runtime: HashRuntime = globalThis): RuntimeSha256 {
  return builtinSha256Hex(runtime) ?? webCryptoSha256Hex(runtime) ?? null;
}

let chosen: RuntimeSha256 | undefined;

/**
 * Hex SHA-256 of a string's UTF-8 bytes with the runtime's hash (chosen once): a string where the
 * runtime hashes synchronously (node:crypto), a promise where it has only WebCrypto, undefined where it
 * has neither.
 *
 * @example sha256Hex('abc') === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' // Node.js
 */
export function sha256Hex(text: string): string | Promise<string> | undefined {
  if (chosen === undefined) chosen = runtimeSha256();
  return chosen === null ? undefined : chosen(text);
}
