/**
 * On-demand forecast runs (`POST /v1/forecast/run`, `GET /v1/forecast/runs/{runId}`): the API hands the
 * work to the forecast state machine in AWS (the limits of the scheduled job, not the API's 29 s) and to
 * a background task locally, and answers with a run id the dashboard polls.
 */
import { createHash, randomUUID } from 'node:crypto';
import { DescribeExecutionCommand, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

export type ForecastRunStatus = 'running' | 'succeeded' | 'failed';

/** What `GET /v1/forecast/runs/{runId}` answers. */
export interface ForecastRun {
  readonly runId: string;
  readonly status: ForecastRunStatus;
  readonly startedAt: string;
  /** null while running. */
  readonly stoppedAt: string | null;
}

/** Starts and reports forecast runs of one organization. */
export interface ForecastRuns {
  start(orgId: string): Promise<ForecastRun>;
  /** The run, or undefined when it does not exist or belongs to another organization. */
  get(orgId: string, runId: string): Promise<ForecastRun | undefined>;
}

/** `od-` + 16 hex of the organization's hash + `-` + a UUID: 56 characters, a valid execution name. */
const RUN_ID = /^od-([0-9a-f]{16})-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function orgTag(orgId: string): string {
  return createHash('sha256').update(orgId).digest('hex').slice(0, 16);
}

/**
 * A new run id for an organization. It carries a hash of the organization, so a run can be looked up
 * without storing anything and never by another organization (the id is also the execution's name).
 */
export function newForecastRunId(orgId: string, uuid: string = randomUUID()): string {
  return `od-${orgTag(orgId)}-${uuid}`;
}

/** Whether `runId` is well-formed and was issued to `orgId`. */
export function runBelongsTo(runId: string, orgId: string): boolean {
  const m = RUN_ID.exec(runId);
  return m !== null && m[1] === orgTag(orgId);
}

/** Step Functions: one execution of the forecast state machine per run, input `{ orgId }`. */
export class StepFunctionsForecastRuns implements ForecastRuns {
  constructor(
    private readonly client: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(orgId: string): Promise<ForecastRun> {
    const runId = newForecastRunId(orgId);
    const out = await this.client.send(
      new StartExecutionCommand({
        stateMachineArn: this.stateMachineArn,
        name: runId,
        input: JSON.stringify({ orgId }),
      }),
    );
    return {
      runId,
      status: 'running',
      startedAt: (out.startDate ?? new Date()).toISOString(),
      stoppedAt: null,
    };
  }

  async get(orgId: string, runId: string): Promise<ForecastRun | undefined> {
    if (!runBelongsTo(runId, orgId)) return undefined;
    // arn:aws:states:<region>:<account>:stateMachine:<name> → …:execution:<name>:<runId>
    const executionArn = `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${runId}`;
    try {
      const out = await this.client.send(new DescribeExecutionCommand({ executionArn }));
      const status: ForecastRunStatus =
        out.status === 'RUNNING' || out.status === 'PENDING_REDRIVE'
          ? 'running'
          : out.status === 'SUCCEEDED'
            ? 'succeeded'
            : 'failed';
      return {
        runId,
        status,
        startedAt: (out.startDate ?? new Date(0)).toISOString(),
        stoppedAt: out.stopDate ? out.stopDate.toISOString() : null,
      };
    } catch (err) {
      if ((err as { name?: string }).name === 'ExecutionDoesNotExist') return undefined;
      throw err;
    }
  }
}

/** The most runs the local stand-in remembers (oldest forgotten first). */
export const LOCAL_RUNS_KEPT = 1_000;

/** The local stack: runs the organization's forecast in the background of the process. */
export class BackgroundForecastRuns implements ForecastRuns {
  private readonly runs = new Map<string, ForecastRun>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly runOrganization: (orgId: string) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  start(orgId: string): Promise<ForecastRun> {
    const run: ForecastRun = {
      runId: newForecastRunId(orgId),
      status: 'running',
      startedAt: new Date(this.now()).toISOString(),
      stoppedAt: null,
    };
    this.remember(run);
    const done = (status: ForecastRunStatus) =>
      this.remember({ ...run, status, stoppedAt: new Date(this.now()).toISOString() });
    const task = this.runOrganization(orgId).then(
      () => done('succeeded'),
      () => done('failed'),
    );
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
    return Promise.resolve(run);
  }

  get(orgId: string, runId: string): Promise<ForecastRun | undefined> {
    return Promise.resolve(runBelongsTo(runId, orgId) ? this.runs.get(runId) : undefined);
  }

  /** Resolves when every started run has finished (tests, and the local stack's stop). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private remember(run: ForecastRun): void {
    this.runs.delete(run.runId);
    this.runs.set(run.runId, run);
    if (this.runs.size > LOCAL_RUNS_KEPT) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }
}
