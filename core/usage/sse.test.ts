import { LineSplitter } from './lines';
import { NdjsonDecoder } from './ndjson';
import { SseDecoder, type FrameSink } from './sse';

interface Recorded {
  frames: Array<[data: string, event: string]>;
  overflows: number;
}

function recorder(): FrameSink & Recorded {
  const rec: FrameSink & Recorded = {
    frames: [],
    overflows: 0,
    frame(data, event) {
      rec.frames.push([data, event]);
    },
    overflow() {
      rec.overflows++;
    },
  };
  return rec;
}

/** Decodes `input` as SSE, pushed in the given pieces (strings are UTF-8 encoded first). */
function sse(pieces: Array<string | Uint8Array>, maxFrame = 1_000): Recorded {
  const sink = recorder();
  const decoder = new SseDecoder(maxFrame, sink);
  const splitter = new LineSplitter(maxFrame, decoder);
  for (const piece of pieces)
    splitter.push(typeof piece === 'string' ? new TextEncoder().encode(piece) : piece);
  splitter.end();
  decoder.end();
  return { frames: sink.frames, overflows: sink.overflows };
}

describe('SSE framing', () => {
  it.each([
    ['LF', 'event: a\ndata: 1\n\ndata: 2\n\n'],
    ['CRLF', 'event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n'],
    ['CR', 'event: a\rdata: 1\r\rdata: 2\r\r'],
  ])('splits events on blank lines with %s line endings', (_label, text) => {
    expect(sse([text]).frames).toEqual([
      ['1', 'a'],
      ['2', ''],
    ]);
  });

  it('joins multi-line data with \\n and removes one space after the colon', () => {
    expect(sse(['data:  two spaces\ndata:none\ndata\n\n']).frames).toEqual([[' two spaces\nnone\n', '']]);
  });

  it('ignores comments, id, retry and unknown fields, and does not dispatch events without data', () => {
    const text =
      ': OPENROUTER PROCESSING\n\nid: 7\nretry: 1000\nevent: ping\n\ndataset: x\nfoo: bar\ndata: kept\n\n';
    expect(sse([text]).frames).toEqual([['kept', '']]);
  });

  it('dispatches a last event that lacks its blank line, and a last line that lacks its newline', () => {
    expect(sse(['data: a\n\ndata: b']).frames).toEqual([
      ['a', ''],
      ['b', ''],
    ]);
  });

  it('treats a \\r\\n split across chunks as one line ending', () => {
    expect(sse(['data: a\r', '\n\r', '\ndata: b\r\n\r\n']).frames).toEqual([
      ['a', ''],
      ['b', ''],
    ]);
  });

  it('keeps a multi-byte character split across chunks whole', () => {
    const bytes = new TextEncoder().encode('data: 👋é\n\n');
    // the emoji is bytes 6..9; split inside it, and inside é
    const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 9), bytes.subarray(9, 11), bytes.subarray(11)];
    expect(sse(pieces).frames).toEqual([['👋é', '']]);
  });

  it('drops a leading byte-order mark', () => {
    expect(sse([new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), 'data: x\n\n']).frames).toEqual([
      ['x', ''],
    ]);
  });

  it('replaces invalid UTF-8 with U+FFFD instead of throwing', () => {
    expect(
      sse([new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0xe2, 0x82, 0x0a, 0x0a])]).frames,
    ).toEqual([['\ufffd\ufffd', '']]);
  });

  it('drops an event whose line exceeds the frame limit, reports it once, and recovers', () => {
    const long = 'x'.repeat(50);
    const result = sse(['data: ', long.slice(0, 20), long.slice(20), '\n\ndata: ok\n\n'], 30);
    expect(result).toEqual({ frames: [['ok', '']], overflows: 1 });
  });

  it('drops an event whose data lines together exceed the frame limit', () => {
    const result = sse(['data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\ndata: ok\n\n'], 25);
    expect(result).toEqual({ frames: [['ok', '']], overflows: 1 });
  });
});

describe('NDJSON framing', () => {
  it('makes one frame per non-blank line, whatever the line endings', () => {
    const sink = recorder();
    const splitter = new LineSplitter(100, new NdjsonDecoder(sink));
    splitter.push(new TextEncoder().encode('{"a":1}\r\n\n  \n{"b":2}\r{"c":3}'));
    splitter.end();
    expect(sink.frames).toEqual([
      ['{"a":1}', ''],
      ['{"b":2}', ''],
      ['{"c":3}', ''],
    ]);
  });
});
