/**
 * The Data table on the DynamoDB stand-in, for one test file of a store: started (and the table
 * created) before the file's tests, closed after them.
 */
import type { DynamoTable } from '../lambdas/shared/stores/dynamo';
import { LOCAL_RESOURCE_NAMES } from '../lambdas/shared/table-definitions';
import {
  createLocalAwsClients,
  provisionLocalResources,
  startStandIns,
  type StandIns,
} from '../local/runtime';

/** Filled in by the file's `beforeAll`: read `table` inside tests, not at the top of the file. */
export interface LocalDataTable {
  table: DynamoTable;
}

/** Registers the stand-in's start and stop around the calling test file. */
export function localDataTable(): LocalDataTable {
  const local = {} as LocalDataTable;
  let standIns: StandIns | undefined;
  let destroy = (): void => undefined;
  beforeAll(async () => {
    standIns = await startStandIns({ memory: true });
    const clients = createLocalAwsClients(standIns);
    await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
    destroy = () => clients.destroy();
    local.table = { doc: clients.documentClient, tableName: LOCAL_RESOURCE_NAMES.dataTable };
  }, 30_000);
  afterAll(async () => {
    destroy();
    await standIns?.close();
  });
  return local;
}
