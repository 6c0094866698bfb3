import type { DailyUsage } from '@adintel/contracts';
import { html, type Html } from '../web/html';

const PALETTE = ['#0b5cad', '#d4622b', '#2a9d5c', '#8250df', '#c9a227', '#cf3a78', '#1f9bb3', '#6e7781'];
const WIDTH = 720;
const HEIGHT = 280;
const MARGIN = { top: 16, right: 12, bottom: 44, left: 52 };

interface ChartSeries {
  readonly agentId: string;
  readonly label: string;
  readonly color: string;
}

/** Every UTC date from `from` to `to`, inclusive (`YYYY-MM-DD`). */
export function dateRange(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** 1, 2, 5 x 10^n at or above `value`: round axis maxima. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * magnitude >= value) ?? 10;
  return step * magnitude;
}

export function seriesFor(rows: readonly DailyUsage[], names: ReadonlyMap<string, string>): ChartSeries[] {
  const ids = [...new Set([...names.keys(), ...rows.map((r) => r.agent_id)])];
  return ids.map((agentId, i) => ({ agentId, label: names.get(agentId) ?? agentId, color: PALETTE[i % PALETTE.length] ?? '#6e7781' }));
}

/**
 * Tokens charged per day, one stacked bar per day and one colour per agent, as inline SVG
 * (no script, no external asset). Each segment carries a <title> tooltip; the table beside it carries the numbers.
 */
export function usageChart(rows: readonly DailyUsage[], days: readonly string[], series: readonly ChartSeries[]): Html {
  const byDay = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const day = byDay.get(row.date) ?? new Map<string, number>();
    day.set(row.agent_id, (day.get(row.agent_id) ?? 0) + row.charged);
    byDay.set(row.date, day);
  }
  const totals = days.map((d) => [...(byDay.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0));
  const max = niceCeiling(Math.max(0, ...totals));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => MARGIN.top + plotH - (v / max) * plotH;
  const total = totals.reduce((a, b) => a + b, 0);

  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(max * f));
  const labelEvery = Math.max(1, Math.ceil(days.length / 8));

  const bars = days.map((day, i) => {
    let base = 0;
    const x = MARGIN.left + i * slot + (slot - barW) / 2;
    return series.map((s) => {
      const value = byDay.get(day)?.get(s.agentId) ?? 0;
      if (value === 0) return '';
      const top = y(base + value);
      const height = y(base) - top;
      base += value;
      return html`<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, height).toFixed(1)}" fill="${s.color}"><title>${day} · ${s.label}: ${value} tokens</title></rect>`;
    });
  });

  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="usage-chart-title usage-chart-desc" font-family="system-ui, sans-serif" font-size="11">
<title id="usage-chart-title">Tokens charged per day and agent</title>
<desc id="usage-chart-desc">${days[0] ?? ''} to ${days.at(-1) ?? ''}: ${total} tokens in total across ${series.length} agent(s).</desc>
${ticks.map(
  (t) => html`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="currentColor" stroke-opacity="0.15"/>
<text x="${MARGIN.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" fill="currentColor">${t}</text>`,
)}
${bars}
${days.map((day, i) =>
  i % labelEvery === 0
    ? html`<text x="${(MARGIN.left + i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle" fill="currentColor">${day.slice(5)}</text>`
    : '',
)}
<text x="${MARGIN.left}" y="${HEIGHT - 8}" fill="currentColor" fill-opacity="0.7">UTC day (MM-DD) · tokens</text>
${total === 0 ? html`<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" fill="currentColor" font-size="14">No usage in this period</text>` : ''}
</svg>`;
}
