/**
 * SHA-256 of text, synchronous: the request fingerprint is hashed in the task that builds the event,
 * without WebCrypto's promise and thread-pool round trip (which cost more CPU than the hash itself for
 * request-sized inputs) and in every runtime, secure context or not.
 *
 * Where the runtime has Node.js's `crypto` module (Node.js >= 20.16, AWS Lambda, Bun, Deno) the hash is
 * its `createHash`, found at run time through `process.getBuiltinModule`: a static `node:crypto` import
 * would break the bundle in browsers and edge runtimes. Elsewhere, and on Node.js 20.0–20.15 (which
 * lack `getBuiltinModule`), it is `@noble/hashes` (audited), bundled in, so the package keeps zero
 * runtime dependencies. Both hash the text's UTF-8 bytes, a lone surrogate as U+FFFD, as the server's
 * core/fingerprint does (`createHash(…).update(text, 'utf8')`).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Hex SHA-256 of bytes, or of a string's UTF-8 bytes. */
export type Sha256Hex = (data: string | Uint8Array) => string;

/** The one piece of `node:crypto` used, typed here so that no Node.js type leaks into the bundle's API. */
interface BuiltinCrypto {
  createHash(algorithm: 'sha256'): {
    update(data: string | Uint8Array, encoding?: 'utf8'): { digest(encoding: 'hex'): string };
  };
}

interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

let encoder: InstanceType<typeof TextEncoder> | undefined;

/** {@link Sha256Hex} in JavaScript (`@noble/hashes`): the fallback for runtimes without `crypto`. */
export const bundledSha256Hex: Sha256Hex = (data) =>
  bytesToHex(sha256(typeof data === 'string' ? (encoder ??= new TextEncoder()).encode(data) : data));

/**
 * {@link Sha256Hex} through the runtime's built-in `crypto` module, or undefined when there is none
 * (browsers, edge runtimes, Node.js before 20.16). Never throws.
 *
 * @param runtime the global object to look in (tests pass their own).
 */
export function builtinSha256Hex(runtime: { process?: unknown } = globalThis): Sha256Hex | undefined {
  try {
    const process = runtime.process as ProcessWithBuiltins | undefined;
    const crypto = process?.getBuiltinModule?.('crypto') as BuiltinCrypto | undefined;
    if (typeof crypto?.createHash !== 'function') return undefined;
    // The encoding applies to a string only (Node.js ignores it for bytes).
    return (data) => crypto.createHash('sha256').update(data, 'utf8').digest('hex');
  } catch {
    return undefined;
  }
}

let chosen: Sha256Hex | undefined;

/**
 * Hex SHA-256 of bytes or of a string's UTF-8 bytes: the runtime's `crypto` where it exists, else the bundled one.
 *
 * @example sha256Hex('abc') === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(data: string | Uint8Array): string {
  return (chosen ??= builtinSha256Hex() ?? bundledSha256Hex)(data);
}
