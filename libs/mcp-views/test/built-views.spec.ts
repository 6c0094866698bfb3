import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT_VIEWS_DIR, readBuiltViews, VIEW_NAMES, viewUri } from '../src';

const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');

describe('built views', () => {
  it('has one self-contained HTML file per view after `nx build mcp-views`', () => {
    const views = readBuiltViews(join(WORKSPACE_ROOT, BUILT_VIEWS_DIR));
    expect([...views.keys()]).toEqual(VIEW_NAMES);
    for (const html of views.values()) {
      expect(html).toMatch(/^<!doctype html>/);
      expect(html.match(/<script>/g)).toHaveLength(1);
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    }
  });

  it('says how to build the views when one is missing', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-views-'));
    try {
      expect(() => readBuiltViews(empty)).toThrow(/npx nx build mcp-views/);
    } finally {
      rmSync(empty, { recursive: true });
    }
  });

  it('gives every view a ui:// URI', () => {
    expect(VIEW_NAMES.map(viewUri)).toEqual(['ui://ad-intel/ad-gallery.html', 'ui://ad-intel/trend-chart.html', 'ui://ad-intel/advertiser-card.html']);
  });
});
