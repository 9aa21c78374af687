/**
 * The `Accept-Encoding` the relay sends upstream (issue 19.4): only codings its usage tap decodes, so the
 * provider's answer stays readable for usage while the client still gets the provider's bytes untouched.
 */

/** Content codings the usage tap decodes (usage-tap `decompressor`). */
export const DECODABLE_CODINGS: ReadonlySet<string> = new Set([
  'gzip',
  'x-gzip',
  'deflate',
  'br',
  'identity',
]);

/**
 * The client's `Accept-Encoding` reduced to codings the relay decodes (issue 19.4): the provider then
 * answers in a coding the client accepts and the relay can read. Undefined when the client sent none
 * (the provider answers uncompressed); `identity` when the client accepts none the relay decodes.
 *
 * @example decodableAcceptEncoding('zstd, br;q=0.9') // 'br;q=0.9'
 */
export function decodableAcceptEncoding(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(',');
  const kept = text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => {
      const coding = (t.split(';', 1)[0] ?? '').trim().toLowerCase();
      return DECODABLE_CODINGS.has(coding);
    });
  return kept.length === 0 ? 'identity' : kept.join(', ');
}
