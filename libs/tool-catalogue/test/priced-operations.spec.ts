import { findPriced, findTool, MEDIA_FILE, PRICED_OPERATIONS, TOOLS, worstCaseCost } from '../src/index';

describe('priced operations beside the tools', () => {
  it('prices a media file at 10 tokens, findable by metering but not a tool', () => {
    expect(worstCaseCost(MEDIA_FILE, {})).toBe(10);
    expect(findPriced('media_file')).toBe(MEDIA_FILE);
    expect(findTool('media_file')).toBeUndefined();
    expect(TOOLS.map((tool) => tool.name)).not.toContain('media_file');
    expect(TOOLS).toHaveLength(20);
  });

  it('finds every tool too, and nothing else', () => {
    for (const tool of TOOLS) expect(findPriced(tool.name)).toBe(tool);
    expect(findPriced('mine_bitcoin')).toBeUndefined();
    const names = [...TOOLS, ...PRICED_OPERATIONS].map((priced) => priced.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
