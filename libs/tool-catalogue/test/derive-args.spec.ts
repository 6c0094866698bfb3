import { z } from 'zod';
import { MeteringMessages, QueryMessages } from '@adintel/contracts';
import { argsFromMessage, findTool, parseToolArgs, TOOLS } from '../src/index';

describe("a tool's arguments (one source: its message's request)", () => {
  it('are the request schema itself for every query tool on HTTP, plus `fields` on list tools', () => {
    for (const tool of TOOLS.filter((t) => !t.callerScoped && !t.selection)) expect(tool.args('http')).toBe(tool.message.request);
    for (const tool of TOOLS.filter((t) => !t.callerScoped && t.selection)) {
      expect(Object.keys(tool.args('http').shape)).toEqual([...Object.keys((tool.message.request as z.ZodObject).shape), 'fields']);
    }
  });

  it('are the request without caller_id for caller-scoped tools, and still refuse unknown fields', () => {
    for (const tool of TOOLS.filter((t) => t.callerScoped)) {
      const request = (tool.message.request as z.ZodObject).shape;
      const { caller_id: _caller, ...expected } = request;
      expect(Object.keys(tool.args('mcp').shape)).toEqual(Object.keys(expected));
      expect(parseToolArgs(tool, 'mcp', { caller_id: 'someone-else' })).toMatchObject({ ok: false, errors: [{ field: 'caller_id' }] });
    }
  });

  it('differ on a surface only in the overridden field, keeping the refinements', () => {
    const searchAds = findTool('search_ads');
    if (!searchAds) throw new Error('no search_ads');
    expect(Object.keys(searchAds.args('mcp').shape)).toEqual([...Object.keys(QueryMessages.searchAds.request.shape), 'fields']);
    expect(parseToolArgs(searchAds, 'mcp', { sort_by: 'impressions' })).toMatchObject({ ok: false, errors: [{ field: 'sort_by' }] });
    expect(parseToolArgs(searchAds, 'mcp', { date_from: '2026-02-01', date_to: '2026-01-01' })).toMatchObject({ ok: false });
  });

  it('refuses a caller-scoped message without caller_id', () => {
    expect(() => argsFromMessage(QueryMessages.getAd, { callerScoped: true })).toThrow(/caller_id/);
    expect(() => argsFromMessage(MeteringMessages.getUsage, { callerScoped: true })).not.toThrow();
  });
});
