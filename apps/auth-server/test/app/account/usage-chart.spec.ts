import { dateRange, niceCeiling, seriesFor, usageChart } from '../../../src/app/account/usage-chart';

describe('usage chart', () => {
  it('lists every day of the range and rounds axis maxima', () => {
    expect(dateRange('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect([0, 1, 7, 12, 180, 4001].map(niceCeiling)).toEqual([1, 1, 10, 20, 200, 5000]);
  });

  it('stacks one bar segment per agent and day, escaped, with an accessible title', () => {
    const rows = [
      { date: '2026-03-01', agent_id: 'agt_a', charged: 30, calls: 2 },
      { date: '2026-03-01', agent_id: 'agt_b', charged: 10, calls: 1 },
      { date: '2026-03-02', agent_id: 'agt_a', charged: 5, calls: 1 },
    ];
    const series = seriesFor(rows, new Map([['agt_a', '<Scout>']]));
    const svg = usageChart(rows, dateRange('2026-03-01', '2026-03-02'), series).value;
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('2026-03-01 · &lt;Scout&gt;: 30 tokens');
    expect(svg).toContain('45 tokens in total across 2 agent(s)');
    expect(svg).not.toContain('<Scout>');
  });

  it('says so when there is no usage', () => {
    expect(usageChart([], dateRange('2026-03-01', '2026-03-03'), []).value).toContain('No usage in this period');
  });
});
