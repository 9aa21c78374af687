/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, synchronous: the request fingerprint is hashed in the task
 * that builds the event, without WebCrypto's promise and thread-pool round trip (which cost more CPU
 * than the hash itself for request-sized inputs) and in every runtime, secure context or not.
 * `sdk/test/fingerprint.test.ts` checks it against node:crypto on random inputs.
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 §4.2.2). */
const K = new Int32Array(64);
/** The same of the square roots of the first 8 primes: the initial hash value (§5.3.3). */
const IV = new Int32Array(8);
for (let n = 2, found = 0; found < 64; n++) {
  let prime = true;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
  if (!prime) continue;
  const frac = (x: number): number => ((x - Math.floor(x)) * 0x1_0000_0000) | 0;
  if (found < 8) IV[found] = frac(Math.sqrt(n));
  K[found++] = frac(Math.cbrt(n));
}
const W = new Int32Array(64);

type Words8 = [number, number, number, number, number, number, number, number];

let encoder: InstanceType<typeof TextEncoder> | undefined;

/**
 * Hex SHA-256 of a string's UTF-8 bytes.
 *
 * @example sha256Hex('abc') === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256Hex(text: string): string {
  const bytes = (encoder ??= new TextEncoder()).encode(text);
  const length = bytes.length;
  const padded = new Uint8Array(((length + 72) >>> 6) << 6);
  padded.set(bytes);
  padded[length] = 0x80;
  const end = padded.length;
  const bits = length * 8;
  const high = Math.floor(bits / 0x1_0000_0000);
  for (let i = 0; i < 4; i++) {
    padded[end - 1 - i] = (bits >>> (8 * i)) & 0xff;
    padded[end - 5 - i] = (high >>> (8 * i)) & 0xff;
  }
  let [h0, h1, h2, h3, h4, h5, h6, h7] = IV as unknown as Words8;
  const w = W;
  const k = K;
  for (let offset = 0; offset < end; offset += 64) {
    for (let i = 0, j = offset; i < 16; i++, j += 4) {
      w[i] = (padded[j]! << 24) | (padded[j + 1]! << 16) | (padded[j + 2]! << 8) | padded[j + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const t1 =
        (h +
          (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          (g ^ (e & (f ^ g))) +
          k[i]! +
          w[i]!) |
        0;
      const t2 =
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) | (c & (a | b)))) |
        0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  let hex = '';
  for (const v of [h0, h1, h2, h3, h4, h5, h6, h7]) hex += (v >>> 0).toString(16).padStart(8, '0');
  return hex;
}
