/*
 * Types for the two embedded AWS stand-ins, which ship no declarations of their own. Only the surface
 * that stand-ins.ts uses is declared: both export a factory that returns a plain node:http server whose
 * close() also closes the LevelDB store behind it.
 */

declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; omitted = in memory. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}

declare module 'kinesalite' {
  import type { Server } from 'node:http';

  interface KinesaliteOptions {
    /** LevelDB directory; omitted = in memory. */
    path?: string;
    createStreamMs?: number;
    deleteStreamMs?: number;
    updateStreamMs?: number;
    shardLimit?: number;
  }

  function kinesalite(options?: KinesaliteOptions): Server;
  export = kinesalite;
}
