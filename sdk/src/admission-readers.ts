/**
 * The request readers a call's worst case is read with (core/admission, the relay's own; about a tenth of
 * the bundle): loaded on demand by `load-admission-readers.ts`, since only a call that may be under a hard
 * budget cap needs its worst case. The published ESM build makes this module a file of its own
 * (`admission-readers.mjs`, sdk/scripts/build.ts); CommonJS carries it inline.
 */
export { callShapeOf } from '../../core/admission/call-shape';
export { cheapTokenBound, preciseTokenBound, utf8Bytes } from '../../core/admission/request-bound';
export { requestShapeReaderOf } from '../../core/providers/request-shape';
