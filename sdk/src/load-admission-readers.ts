/**
 * Loads the admission readers (`admission-readers.ts`) on first need, with `import()`: an organization
 * without a hard budget cap never loads them. CommonJS and bundlers without code splitting inline the
 * module; the load is then a resolved promise.
 */
import type * as Readers from './admission-readers';

/** The readers a worst case is computed with. */
export type AdmissionReaders = typeof Readers;

let loaded: AdmissionReaders | undefined;
let loading: Promise<AdmissionReaders> | undefined;

/** The readers once loaded (the hot path reads them synchronously), else undefined. */
export function admissionReaders(): AdmissionReaders | undefined {
  return loaded;
}

/** Loads the readers, once; a failed load is tried again by the next caller. */
export function loadAdmissionReaders(): Promise<AdmissionReaders> {
  loading ??= import('./admission-readers.js').then(
    (m) => (loaded = m),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
