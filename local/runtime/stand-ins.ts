/**
 * DynamoDB and Kinesis Data Streams on one machine: dynalite and kinesalite, started in-process on
 * the loopback interface and reached through the real AWS SDK v3 clients (see clients.ts).
 */
import { mkdir } from 'node:fs/promises';
import { Server as HttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import dynalite from 'dynalite';
import kinesalite from 'kinesalite';

import { InvalidOptionsError, LocalRuntimeError } from './errors';

/** Where the stand-ins keep their data: a directory (survives restarts) or memory (tests). */
export type StandInStorage = { readonly dataDir: string } | { readonly memory: true };

/** Options of {@link startStandIns}. */
export type StandInsOptions = StandInStorage & {
  /**
   * Interface to listen on. Loopback only by default: the stand-ins check no credentials.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /** @default 0 (a free port chosen by the OS) */
  readonly dynamoPort?: number;
  /** @default 0 (a free port chosen by the OS) */
  readonly kinesisPort?: number;
};

/** The running stand-ins. */
export interface StandIns {
  /** For example `http://127.0.0.1:45123`; pass to the SDK client's `endpoint`. */
  readonly dynamoEndpoint: string;
  readonly kinesisEndpoint: string;
  /**
   * Stops both servers and closes their LevelDB stores, so the data dir can be reopened and Jest
   * exits without open handles. Stop pollers and destroy SDK clients first: a request that reaches
   * kinesalite after its store closed crashes it.
   */
  close(): Promise<void>;
}

/** How long in-flight requests get to finish before their connections are cut on close. */
const CLOSE_GRACE_MS = 1000;

/**
 * Starts dynalite and kinesalite.
 *
 * Creation delays are zero (AWS keeps a table CREATING for a while; the laptop need not), so
 * provisioning at start-up is instant. With `dataDir`, data lives under `<dataDir>/dynamodb` and
 * `<dataDir>/kinesis` (LevelDB; one process at a time).
 *
 * @example
 * const standIns = await startStandIns({ dataDir: '.spendguard' });
 * // … createLocalAwsClients(standIns) …
 * await standIns.close();
 */
export async function startStandIns(options: StandInsOptions): Promise<StandIns> {
  const storage = resolveStorage(options);
  const host = options.host ?? '127.0.0.1';

  if (storage.dynamoPath !== undefined && storage.kinesisPath !== undefined) {
    await mkdir(storage.dynamoPath, { recursive: true });
    await mkdir(storage.kinesisPath, { recursive: true });
  }

  const dynamoServer = dynalite({
    ...(storage.dynamoPath === undefined ? {} : { path: storage.dynamoPath }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const kinesisServer = kinesalite({
    ...(storage.kinesisPath === undefined ? {} : { path: storage.kinesisPath }),
    createStreamMs: 0,
    deleteStreamMs: 0,
    updateStreamMs: 0,
    // kinesalite allows 10 shards per account by default; AWS allows 500 in us-east-1.
    shardLimit: 500,
  });

  let dynamoPort: number;
  let kinesisPort: number;
  try {
    dynamoPort = await listen(dynamoServer, options.dynamoPort ?? 0, host);
    kinesisPort = await listen(kinesisServer, options.kinesisPort ?? 0, host);
  } catch (error) {
    // Release the LevelDB stores (and their locks) before reporting, e.g., a busy port.
    await Promise.allSettled([closeDynalite(dynamoServer), closeKinesalite(kinesisServer)]);
    throw error;
  }

  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    dynamoEndpoint: `http://${urlHost}:${dynamoPort}`,
    kinesisEndpoint: `http://${urlHost}:${kinesisPort}`,
    close: () => {
      closing ??= Promise.all([closeDynalite(dynamoServer), closeKinesalite(kinesisServer)]).then(
        () => undefined,
      );
      return closing;
    },
  };
}

function resolveStorage(options: StandInsOptions): { dynamoPath?: string; kinesisPath?: string } {
  const dataDir = 'dataDir' in options ? options.dataDir : undefined;
  const memory = 'memory' in options ? options.memory : undefined;
  // Both may arrive from untyped config (the CLI); refuse rather than guess which one was meant.
  if (dataDir !== undefined && memory === true) {
    throw new InvalidOptionsError('startStandIns: give either dataDir or memory: true, not both');
  }
  if (dataDir === undefined && memory !== true) {
    throw new InvalidOptionsError('startStandIns: give dataDir (persisted) or memory: true');
  }
  if (dataDir === undefined) return {};
  return { dynamoPath: join(dataDir, 'dynamodb'), kinesisPath: join(dataDir, 'kinesis') };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Closes dynalite: its own close() stops the HTTP listener first and then waits for pending LevelDB
 * operations before closing the store, which is the right order. It only closes the store when the
 * listener was running, so a server that never listened (start-up failed on a busy port) is made to
 * listen on a free port first, to release the LevelDB lock. Open keep-alive connections would hold
 * close() open, so the ones still busy after a grace period are cut.
 */
async function closeDynalite(server: Server): Promise<void> {
  if (!server.listening) await listen(server, 0, '127.0.0.1');
  const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      server.close((error?: Error) => (error ? reject(storeCloseError('dynalite', error)) : resolve()));
      server.closeIdleConnections();
    });
  } finally {
    clearTimeout(grace);
  }
}

/**
 * Closes kinesalite: its own close() closes the store first and the listener second, and a request
 * that arrives in between throws inside kinesalite and takes the process down. So the listener is
 * closed first with the unpatched `Server.prototype.close`; the patched close() then shuts LevelDB and
 * reports "not running" for the listener, which is expected.
 */
async function closeKinesalite(server: Server): Promise<void> {
  if (server.listening) {
    const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    await new Promise<void>((resolve) => {
      HttpServer.prototype.close.call(server, () => resolve());
      server.closeIdleConnections();
    });
    clearTimeout(grace);
  }
  await new Promise<void>((resolve, reject) => {
    server.close((error?: Error) => {
      if (error === undefined || error === null || isNotRunning(error)) resolve();
      else reject(storeCloseError('kinesalite', error));
    });
  });
}

function storeCloseError(name: string, error: Error): Error {
  return new LocalRuntimeError(`${name}: closing failed: ${error.message}`, { cause: error });
}

function isNotRunning(error: Error): boolean {
  return (error as NodeJS.ErrnoException).code === 'ERR_SERVER_NOT_RUNNING';
}
