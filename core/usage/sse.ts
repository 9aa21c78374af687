/**
 * Server-sent events framing (WHATWG HTML "event stream" interpretation), on top of {@link LineSplitter}.
 *
 * - `data:` lines are joined with `\n`; one optional space after the colon is removed.
 * - `event:` names the event; `id:` and `retry:` and unknown fields are ignored.
 * - Lines starting with `:` are comments (OpenRouter's `: OPENROUTER PROCESSING` keep-alives).
 * - A blank line dispatches the event; an event without data lines is not dispatched.
 * - At the end of the stream a pending event is dispatched too (the specification drops it; providers'
 *   last frame sometimes lacks the blank line, and dropping it would lose the usage).
 * - An event whose data grows past the frame limit is dropped and reported once through `overflow()`.
 */
import type { LineSink } from './lines';

/** Receives decoded frames: SSE events, or NDJSON lines (with an empty event name). */
export interface FrameSink {
  /** One frame: the event's data (data lines joined by `\n`), and its `event:` name or `''`. */
  frame(data: string, event: string): void;
  /** A frame longer than the limit was dropped. */
  overflow(): void;
}

const COLON = 58;
const SPACE = 32;
const LOWER_D = 100;
const LOWER_E = 101;

export class SseDecoder implements LineSink {
  #data = '';
  #hasData = false;
  #event = '';
  /** The current event overflowed: ignore its remaining lines. */
  #dropping = false;

  readonly #maxFrame: number;
  readonly #sink: FrameSink;

  constructor(maxFrame: number, sink: FrameSink) {
    this.#maxFrame = maxFrame;
    this.#sink = sink;
  }

  line(text: string, start: number, end: number): void {
    if (end === start) {
      this.#dispatch();
      return;
    }
    if (this.#dropping) return;
    // Field names by character codes: cheaper than startsWith on a decoded chunk. Reading past `end` is
    // safe: the character there is the line terminator (or nothing).
    const first = text.charCodeAt(start);
    if (
      first === LOWER_D &&
      text.charCodeAt(start + 1) === 97 &&
      text.charCodeAt(start + 2) === 116 &&
      text.charCodeAt(start + 3) === 97
    ) {
      const from = valueStart(text, start + 4, end);
      if (from === -1) return;
      const value = text.slice(from, end);
      if (this.#hasData) {
        this.#data = `${this.#data}\n${value}`;
        if (this.#data.length > this.#maxFrame) {
          this.#dropping = true;
          this.#data = '';
          this.#sink.overflow();
        }
      } else {
        this.#data = value;
        this.#hasData = true;
      }
    } else if (
      first === LOWER_E &&
      text.charCodeAt(start + 1) === 118 &&
      text.charCodeAt(start + 2) === 101 &&
      text.charCodeAt(start + 3) === 110 &&
      text.charCodeAt(start + 4) === 116
    ) {
      const from = valueStart(text, start + 5, end);
      if (from === -1) return;
      this.#event = text.slice(from, end);
    }
    // ':' comments, 'id', 'retry' and unknown fields carry nothing we need.
  }

  overflow(): void {
    // A single line over the limit: the event it belongs to is incomplete, drop it whole.
    this.#dropping = true;
    this.#data = '';
    this.#sink.overflow();
  }

  /** Dispatches a pending event at the end of the stream. */
  end(): void {
    this.#dispatch();
  }

  #dispatch(): void {
    if (this.#hasData && !this.#dropping) this.#sink.frame(this.#data, this.#event);
    this.#data = '';
    this.#hasData = false;
    this.#event = '';
    this.#dropping = false;
  }
}

/**
 * Where the value of a field line starts, given the index just after the expected field name: past the
 * colon and one optional space; `end` for a bare field name (`data` alone: empty value); -1 when the
 * field name goes on (`dataset: x` is not `data`).
 */
function valueStart(text: string, afterName: number, end: number): number {
  if (afterName === end) return end;
  if (text.charCodeAt(afterName) !== COLON) return -1;
  return text.charCodeAt(afterName + 1) === SPACE && afterName + 1 < end ? afterName + 2 : afterName + 1;
}
