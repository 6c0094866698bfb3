import type { Drive } from './drive';
import type { Resident } from './process-stats';

export interface CaseResult extends Drive {
  readonly target: string;
  readonly connections: number;
  /** CPU ms per answered call, per app and for Redis. */
  readonly cpuMsPerCall: Record<string, number>;
}

interface Report {
  readonly date: Date;
  readonly ads: number;
  readonly duration: number;
  readonly bodyBytes: number;
  readonly inProcessMs: number;
  readonly queryWorkers: number;
  /** p50 of one Redis PING from a Node client: the unit a call's sequential hops are made of. */
  readonly redisRoundTripMs: number;
  readonly results: readonly CaseResult[];
  readonly resident: Record<string, Resident>;
}

const RSS_GOAL_MB = 256;
const CPU_COLUMNS = ['mcp-gateway', 'query-api', 'metering', 'auth-server', 'redis'];

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** The table and the goal ratios, as Markdown (pasted into the README's "End to end" section). */
export function renderReport(report: Report): string {
  const lines: string[] = [];
  lines.push(
    `${report.date.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${report.ads} demo ads, ${report.queryWorkers} query worker(s), ${report.duration} s per case, ` +
      `search_ads answer ${report.bodyBytes} bytes, in-process store time of the same search ${fixed(report.inProcessMs, 3)} ms p50, ` +
      `one Redis round trip (PING from Node) ${fixed(report.redisRoundTripMs, 3)} ms p50`,
  );
  lines.push('');
  lines.push(`| case | conns | req/s | p50 ms | p95 ms | p99 ms | CPU ms/call: ${CPU_COLUMNS.join(' | ')} | failed |`);
  lines.push(`|---|---:|---:|---:|---:|---:|${CPU_COLUMNS.map(() => '---:').join('|')}|---:|`);
  for (const r of report.results) {
    const cpu = CPU_COLUMNS.map((app) => (r.target === 'bare route' ? '-' : fixed(r.cpuMsPerCall[app] ?? Number.NaN)));
    lines.push(`| ${r.target} | ${r.connections} | ${fixed(r.requestsPerSecond, 0)} | ${fixed(r.p50)} | ${fixed(r.p95)} | ${fixed(r.p99)} | ${cpu.join(' | ')} | ${r.errors} |`);
  }
  lines.push('');
  lines.push(
    `RSS after the run, MB (anonymous + mapped files): ${Object.entries(report.resident)
      .map(([app, rss]) => `${app} ${fixed(rss.total, 0)} (${fixed(rss.anon, 0)} + ${fixed(rss.file, 0)})`)
      .join(', ')}`,
  );
  lines.push('');
  lines.push(...goals(report).map((goal) => `- ${goal}`));
  return lines.join('\n');
}

/** The MCP revisions the bench calls search_ads on, each side by side with REST in the same run. */
export const MCP_REVISIONS = ['2025-11-25', '2026-07-28'] as const;

function goals({ results, inProcessMs, redisRoundTripMs, resident }: Report): string[] {
  const find = (target: string, connections: number) => results.find((r) => r.target === target && r.connections === connections);
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const out: string[] = [];
  const rest16 = find('REST search_ads', 16);
  const bare16 = find('bare route', 16);
  if (rest16 && bare16) {
    const share = bare16.requestsPerSecond / rest16.requestsPerSecond;
    out.push(`REST search_ads at 16 conns / bare route: 1/${fixed(share, 1)} (goal >= 1/15): ${verdict(share <= 15)}`);
  }
  const rest1 = find('REST search_ads', 1);
  if (rest1) {
    const ratio = rest1.p50 / inProcessMs;
    out.push(
      `REST p50 at 1 conn / in-process: ${fixed(rest1.p50)} / ${fixed(inProcessMs, 3)} ms = ${fixed(ratio, 1)}x (goal <= 2x): ${verdict(ratio <= 2)}; ` +
        `the same p50 is ${fixed(rest1.p50 / redisRoundTripMs, 1)} Redis round trips`,
    );
  }
  for (const connections of [1, 16]) {
    const rest = find('REST search_ads', connections);
    for (const revision of MCP_REVISIONS) {
      const mcp = find(`MCP ${revision} search_ads`, connections);
      if (!rest || !mcp) continue;
      const ratio = mcp.p50 / rest.p50;
      out.push(`MCP ${revision} p50 / REST p50 at ${connections} conn: ${fixed(mcp.p50)} / ${fixed(rest.p50)} ms = ${fixed(ratio)}x (goal <= 1.1x): ${verdict(ratio <= 1.1)}`);
    }
  }
  for (const [app, { total }] of Object.entries(resident)) {
    out.push(`RSS ${app}: ${fixed(total, 0)} MB (goal <= ${RSS_GOAL_MB} MB): ${verdict(total <= RSS_GOAL_MB)}`);
  }
  return out;
}
