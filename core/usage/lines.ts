/**
 * Bytes → text lines, incrementally. Shared by the SSE and NDJSON framings.
 *
 * - UTF-8 is decoded per chunk up to the last complete character; the 1–3 bytes of a character split
 *   across chunks wait for the next chunk. (TextDecoder's own `stream: true` mode gives the same text
 *   but is several times slower in Node.) Invalid bytes become U+FFFD, never an exception. A BOM at the
 *   start of the stream is dropped.
 * - Lines end at `\n`, `\r\n` or a lone `\r` (as the SSE specification requires), also when the `\r` and
 *   the `\n` arrive in different chunks.
 * - Only the unfinished last line is kept between chunks. A line longer than `maxLine` characters is
 *   dropped (the sink hears `overflow()` once) and the rest of it is skipped up to its end.
 *
 * The output is identical for any chunking of the same bytes.
 */

/** Receives the lines of a byte stream. */
export interface LineSink {
  /**
   * One line, `text.slice(start, end)`, without its terminator. Passed as a range so that lines the
   * sink ignores (SSE blank lines, comments, event names it already knows) cost no substring.
   */
  line(text: string, start: number, end: number): void;
  /** A line was longer than the limit and was dropped. */
  overflow(): void;
}

const LF = 10;
const CR = 13;

export class LineSplitter {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  /** Bytes of a character whose end has not arrived yet (at most 3). */
  #partial: Uint8Array | undefined;
  /** No text decoded yet: a BOM may still come. */
  #atStart = true;
  /** The start of a line whose end has not arrived yet. */
  #carry = '';
  /** The previous text ended with `\r`: a `\n` at the start of the next text belongs to it. */
  #skipLf = false;
  /** Inside an over-long line: drop text up to the next line end. */
  #discarding = false;

  readonly #maxLine: number;
  #sink: LineSink;

  constructor(maxLine: number, sink: LineSink) {
    this.#maxLine = maxLine;
    this.#sink = sink;
  }

  /** Sends the following lines to another sink (a sniffer hands over to the decoder it chose). */
  redirect(sink: LineSink): void {
    this.#sink = sink;
  }

  /** Consumes the next bytes. */
  push(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.#partial !== undefined) {
      bytes = new Uint8Array(this.#partial.length + chunk.length);
      bytes.set(this.#partial);
      bytes.set(chunk, this.#partial.length);
      this.#partial = undefined;
    }
    const cut = completeLength(bytes);
    if (cut < bytes.length) this.#partial = bytes.slice(cut);
    if (cut > 0)
      this.#feedDecoded(this.#decoder.decode(cut === bytes.length ? bytes : bytes.subarray(0, cut)));
  }

  /** Consumes already decoded text. */
  pushText(text: string): void {
    this.#feedDecoded(text);
  }

  /** Flushes the decoder and emits the last line even when it has no terminator. */
  end(): void {
    if (this.#partial !== undefined) this.#feedDecoded(this.#decoder.decode(this.#partial));
    this.#partial = undefined;
    if (!this.#discarding && this.#carry.length > 0) this.#sink.line(this.#carry, 0, this.#carry.length);
    this.#carry = '';
    this.#discarding = false;
    this.#skipLf = false;
  }

  #feedDecoded(decoded: string): void {
    let text = decoded;
    if (this.#atStart && text.length > 0) {
      this.#atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const n = text.length;
    if (n === 0) return;
    let start = 0;
    if (this.#skipLf) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    // Positions of the next \n and \r, each searched again only once passed (-1: none left in `text`).
    let lf = -2;
    let cr = -2;
    while (start < n) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      let end: number;
      if (lf === -1) {
        if (cr === -1) break;
        end = cr;
      } else {
        end = cr === -1 || lf < cr ? lf : cr;
      }
      const lineStart = start;
      start = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (start === n) this.#skipLf = true;
        else if (text.charCodeAt(start) === LF) start++;
      }
      if (this.#discarding) {
        this.#discarding = false;
        this.#carry = '';
      } else if (this.#carry.length === 0) {
        if (end - lineStart > this.#maxLine) this.#sink.overflow();
        else this.#sink.line(text, lineStart, end);
      } else {
        const line = this.#carry + text.slice(lineStart, end);
        this.#carry = '';
        if (line.length > this.#maxLine) this.#sink.overflow();
        else this.#sink.line(line, 0, line.length);
      }
    }
    if (start < n && !this.#discarding) {
      this.#carry = this.#carry.length === 0 ? text.slice(start) : this.#carry + text.slice(start);
      if (this.#carry.length > this.#maxLine) {
        this.#carry = '';
        this.#discarding = true;
        this.#sink.overflow();
      }
    }
  }
}

/**
 * Length of the longest prefix of `bytes` that ends on a UTF-8 character boundary: everything but an
 * incomplete multi-byte sequence at the very end. Invalid bytes count as complete (they decode to U+FFFD
 * wherever the cut falls).
 */
function completeLength(bytes: Uint8Array): number {
  const n = bytes.length;
  // The last lead byte is within the final 4 bytes if a sequence is incomplete.
  for (let i = n - 1; i >= 0 && i >= n - 4; i--) {
    const b = bytes[i] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 1;
    return n - i < need ? i : n;
  }
  return n;
}
