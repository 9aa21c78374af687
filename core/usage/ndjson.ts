/**
 * Newline-delimited JSON framing (Ollama's native streams, `application/x-ndjson`): every non-blank
 * line is one frame. Lines come from {@link LineSplitter}, which also enforces the frame limit.
 */
import type { LineSink } from './lines';
import type { FrameSink } from './sse';

export class NdjsonDecoder implements LineSink {
  readonly #sink: FrameSink;

  constructor(sink: FrameSink) {
    this.#sink = sink;
  }

  line(text: string, start: number, end: number): void {
    if (end === start) return;
    const line = text.slice(start, end);
    if (line.trim().length > 0) this.#sink.frame(line, '');
  }

  overflow(): void {
    this.#sink.overflow();
  }
}
