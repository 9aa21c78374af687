/**
 * Usage of a JSON response too large to parse on the proxy path (issue 15.1: no multi-MB `JSON.parse`
 * on the event loop every caller shares). Providers put the usage object at the end of a response
 * (OpenAI and OpenRouter `usage`, Anthropic `usage`, Gemini `usageMetadata`) and the model near its
 * start, so only a 64 KiB head and tail are read: the last `"usage":{…}` (or `"usageMetadata":{…}`)
 * of the tail, and `model` / `modelVersion` / `service_tier`, are put in a small JSON body that the
 * ordinary usage parsers read. A key matched with its opening quote cannot come from inside a JSON
 * string (quotes there are escaped), so the text found is structure, not content.
 */

/** Responses larger than this are not parsed whole (the request-side bound, `MAX_PARSE_BYTES`). */
export const MAX_RESPONSE_PARSE_BYTES = 1024 * 1024;
/** How much of each end of a large response is read. */
const EDGE_BYTES = 64 * 1024;

const USAGE_KEYS = ['usage', 'usageMetadata'] as const;
const STRING_FIELDS = ['model', 'modelVersion', 'service_tier'] as const;

/**
 * A small JSON body with the usage-bearing members of a large JSON response, or null when its tail
 * holds no usage object.
 *
 * @example usageEssentials(Buffer.from('{"model":"m",…5 MB…,"usage":{"prompt_tokens":3}}'))
 * // Buffer of '{"model":"m","usage":{"prompt_tokens":3}}'
 */
export function usageEssentials(body: Uint8Array): Buffer | null {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const head = buf.subarray(0, EDGE_BYTES).toString('utf8');
  const tail = buf.subarray(Math.max(0, buf.byteLength - EDGE_BYTES)).toString('utf8');
  const members: string[] = [];
  for (const key of USAGE_KEYS) {
    const object = lastObjectMember(tail, key);
    if (object !== null) members.push(`${JSON.stringify(key)}:${object}`);
  }
  if (members.length === 0) return null;
  for (const key of STRING_FIELDS) {
    const value = lastStringMember(tail, key) ?? firstStringMember(head, key);
    if (value !== null) members.push(`${JSON.stringify(key)}:${value}`);
  }
  return Buffer.from(`{${members.join(',')}}`, 'utf8');
}

/** The text of the object value of the last `"key": {…}` in `text`, if complete and valid JSON. */
function lastObjectMember(text: string, key: string): string | null {
  const re = new RegExp(`"${key}"\\s*:\\s*\\{`, 'g');
  let start = -1;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) start = m.index + m[0].length - 1;
  if (start < 0) return null;
  const end = objectEnd(text, start);
  if (end < 0) return null;
  const candidate = text.slice(start, end + 1);
  try {
    JSON.parse(candidate);
    return candidate;
  } catch {
    return null;
  }
}

/** Index of the `}` closing the object that opens at `open`, skipping strings; -1 when cut off. */
function objectEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // skip a string literal
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

const stringMember = (key: string) => new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.){0,256}")`, 'g');

function firstStringMember(text: string, key: string): string | null {
  return stringMember(key).exec(text)?.[1] ?? null;
}

function lastStringMember(text: string, key: string): string | null {
  const re = stringMember(key);
  let found: string | null = null;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) found = m[1] ?? null;
  return found;
}
