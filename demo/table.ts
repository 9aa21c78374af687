/**
 * Terminal output of the demo: the agents table (live and final), redrawn in place with ANSI escapes when
 * the output is a TTY, or printed as plain periodic progress lines otherwise (CI logs, tests, pipes).
 */

/** Where the demo writes (process.stdout, or a collector in tests). */
export interface Output {
  write(text: string): unknown;
}

/** What the table shows of one agent. */
export interface AgentRow {
  readonly name: string;
  /** The agent's organization (its label). */
  readonly org: string;
  readonly path: string;
  /** 'healthy' or 'layer N'. */
  readonly expected: string;
  readonly calls: number;
  readonly spendUsd: number;
  /** running / STOPPED by layer N (triggerType) at call K / finished / … */
  readonly state: string;
  readonly tone: 'running' | 'good' | 'stopped' | 'bad';
  /** Final table only: did the agent end as expected. */
  readonly verdict?: boolean;
}

const ANSI = {
  reset: '\x1b[0m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  hideCursor: '\x1b[?25l',
  showCursor: '\x1b[?25h',
  clearLine: '\x1b[2K',
  clearBelow: '\x1b[J',
  /** Cursor up n lines, to column 1. */
  up: (n: number) => `\x1b[${n}F`,
} as const;

export function formatUsd(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A plain-text table: columns padded to their widest cell; numbers right-aligned. */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: readonly number[] = [],
): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => {
        const w = widths[i] ?? 0;
        return rightAligned.includes(i) ? c.padStart(w) : c.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)];
}

/** The agents table, one line per agent (plus the header and rule). */
export function agentTable(rows: readonly AgentRow[], final = false): string[] {
  const headers = [
    'agent',
    'org',
    'path',
    'expected',
    'calls',
    'org spend',
    'state',
    ...(final ? ['ok'] : []),
  ];
  return renderTable(
    headers,
    rows.map((r) => [
      r.name,
      r.org,
      r.path,
      r.expected,
      String(r.calls),
      formatUsd(r.spendUsd),
      r.state,
      ...(final ? [r.verdict ? 'yes' : 'NO'] : []),
    ]),
    [4, 5],
  );
}

/**
 * The live view. On a TTY it redraws the table in place every `intervalMs` (cursor up, clear, rewrite;
 * lines cut to the terminal width so that nothing wraps and the cursor arithmetic holds). Otherwise it
 * prints each notable event as it happens and a one-line summary every `plainEveryMs`.
 */
export class LiveView {
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastPlain = 0;
  private readonly startedAt = Date.now();

  constructor(
    private readonly out: Output,
    private readonly tty: boolean,
    private readonly rows: () => readonly AgentRow[],
    private readonly options: { columns?: number; intervalMs?: number; plainEveryMs?: number } = {},
  ) {}

  start(): void {
    if (this.tty) {
      this.out.write(ANSI.hideCursor);
      this.redraw();
      this.timer = setInterval(() => this.redraw(), this.options.intervalMs ?? 200);
    } else {
      this.lastPlain = Date.now();
      this.timer = setInterval(() => this.plainTick(), 250);
    }
    this.timer.unref();
  }

  /** Something happened to one agent (a stop, a failure): a line of its own in plain mode. */
  event(text: string): void {
    if (!this.tty) this.out.write(`[${this.elapsed().padStart(6)}] ${text}\n`);
  }

  /** Stops the live view; on a TTY the last drawing is replaced by nothing (the caller prints the final table). */
  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty) {
      this.erase();
      this.out.write(ANSI.showCursor);
    }
  }

  private elapsed(): string {
    return formatSeconds(Date.now() - this.startedAt);
  }

  private plainTick(): void {
    const every = this.options.plainEveryMs ?? 5000;
    if (Date.now() - this.lastPlain < every) return;
    this.lastPlain = Date.now();
    const rows = this.rows();
    const count = (tone: AgentRow['tone']) => rows.filter((r) => r.tone === tone).length;
    const calls = rows.reduce((n, r) => n + r.calls, 0);
    // Spend is per organization: agents sharing one count it once.
    const spend = [...new Map(rows.map((r) => [r.org, r.spendUsd])).values()].reduce((n, v) => n + v, 0);
    this.out.write(
      `[${this.elapsed().padStart(6)}] ${calls} calls, ${formatUsd(spend)} spent; ` +
        `running ${count('running')}, stopped ${count('stopped')}, finished ${count('good')}` +
        `${count('bad') ? `, FAILED ${count('bad')}` : ''}\n`,
    );
  }

  private erase(): void {
    if (this.drawn > 0) this.out.write(ANSI.up(this.drawn) + ANSI.clearBelow);
    this.drawn = 0;
  }

  private redraw(): void {
    const rows = this.rows();
    const width = Math.max(20, (this.options.columns ?? 120) - 1);
    const table = agentTable(rows);
    const lines = [
      `${ANSI.bold}Fleet running${ANSI.reset} ${ANSI.dim}${this.elapsed()}${ANSI.reset}`,
      ...table.map((text, i) => {
        const cut = text.length > width ? `${text.slice(0, width - 1)}…` : text;
        const row = i >= 2 ? rows[i - 2] : undefined;
        return row ? colour(cut, row.tone) : `${ANSI.dim}${cut}${ANSI.reset}`;
      }),
    ];
    let frame = this.drawn > 0 ? ANSI.up(this.drawn) : '';
    for (const l of lines) frame += `${ANSI.clearLine}${l}\n`;
    this.out.write(frame + ANSI.clearBelow);
    this.drawn = lines.length;
  }
}

function colour(text: string, tone: AgentRow['tone']): string {
  const c = tone === 'good' ? ANSI.green : tone === 'stopped' ? ANSI.yellow : tone === 'bad' ? ANSI.red : '';
  return c ? `${c}${text}${ANSI.reset}` : text;
}
