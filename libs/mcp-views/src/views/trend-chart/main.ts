import type { TrendRow, Trends } from '@adintel/contracts';
import { el, formatChange, formatNumber, formatShare, show, startView } from '../shared/view-app';

/** get_trends as ranked bars, or a daily line for the timeline; each row shows its change against the previous window. */
startView<Trends>('trend-chart', {
  render(trends) {
    const title = `${trends.dimension.replace('/cards', '').replace('-', ' ')} · ${trends.window.date_from} → ${trends.window.date_to}`;
    show(
      el('header', {}, el('h2', {}, title), el('p', { class: 'muted' }, `${formatNumber(trends.total_ads)} ads in the window · change against ${trends.previous_window.date_from} → ${trends.previous_window.date_to}`)),
      trends.data.length === 0 ? el('p', { class: 'muted' }, 'No rows for these filters.') : trends.dimension === 'timeline' ? timeline(trends.data) : bars(trends.data),
    );
  },
});

function changeBadge(row: TrendRow): HTMLElement {
  const change = formatChange(row.change);
  return el('span', { class: `change ${change.trend}`, title: `previous window: ${formatNumber(row.change.previous_ads)} ads` }, change.text);
}

function bars(rows: readonly TrendRow[]): HTMLElement {
  const max = Math.max(1, ...rows.map((row) => row.ads));
  return el(
    'ol',
    { class: 'bars' },
    ...rows.map((row) => {
      const bar = el('span', { class: 'bar' });
      bar.style.width = `${Math.max(1, (row.ads / max) * 100)}%`;
      return el(
        'li',
        { class: 'row', 'data-key': row.key },
        el('span', { class: 'rank' }, row.rank),
        el('span', { class: 'label', title: row.label }, row.label),
        el('span', { class: 'track' }, bar),
        el('span', { class: 'value' }, `${formatNumber(row.ads)} · ${formatShare(row.share)}`),
        changeBadge(row),
      );
    }),
  );
}

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag: string, attrs: Record<string, string | number>) => {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
};

function timeline(rows: readonly TrendRow[]): HTMLElement {
  const width = 640;
  const height = 200;
  const pad = { left: 44, right: 12, top: 10, bottom: 24 };
  const max = Math.max(1, ...rows.map((row) => row.ads));
  const x = (i: number) => pad.left + (rows.length === 1 ? 0 : (i / (rows.length - 1)) * (width - pad.left - pad.right));
  const y = (value: number) => pad.top + (1 - value / max) * (height - pad.top - pad.bottom);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'line-chart', role: 'img', 'aria-label': 'ads per day' });
  for (const tick of [0, max / 2, max]) {
    chart.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick), class: 'grid-line' }));
    const label = svg('text', { x: pad.left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'axis' });
    label.textContent = formatNumber(Math.round(tick));
    chart.append(label);
  }
  chart.append(svg('polyline', { points: rows.map((row, i) => `${x(i)},${y(row.ads)}`).join(' '), class: 'line' }));
  rows.forEach((row, i) => {
    const point = svg('circle', { cx: x(i), cy: y(row.ads), r: 2.5, class: 'point' });
    const tip = svg('title', {});
    tip.textContent = `${row.label}: ${formatNumber(row.ads)} ads (${formatChange(row.change).text})`;
    point.append(tip);
    chart.append(point);
  });
  for (const i of [0, rows.length - 1]) {
    const label = svg('text', { x: x(i), y: height - 6, 'text-anchor': i === 0 ? 'start' : 'end', class: 'axis' });
    label.textContent = rows[i]?.label ?? '';
    chart.append(label);
  }
  const last = rows[rows.length - 1];
  const figure = el('figure', { class: 'timeline' });
  figure.append(chart);
  if (last) figure.append(el('figcaption', { class: 'muted' }, `Last day ${last.label}: ${formatNumber(last.ads)} ads `, changeBadge(last)));
  return figure;
}
