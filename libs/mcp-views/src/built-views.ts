import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolView } from '@adintel/tool-catalogue';
import { VIEW_NAMES } from './view-catalogue';

/** Where `nx build mcp-views` writes one self-contained HTML file per view. */
export const BUILT_VIEWS_DIR = 'dist/libs/mcp-views';

export const viewFileName = (view: ToolView) => `${view}.html`;

/**
 * Reads every built view once. A missing file stops the caller at start-up with the command that builds it,
 * rather than a view that fails when a host first asks for it.
 */
export function readBuiltViews(dir: string): ReadonlyMap<ToolView, string> {
  return new Map(
    VIEW_NAMES.map((view) => {
      const file = join(dir, viewFileName(view));
      try {
        return [view, readFileSync(file, 'utf8')] as const;
      } catch (error) {
        throw new Error(`the MCP view ${file} is missing (${(error as Error).message}); build it with \`npx nx build mcp-views\``, { cause: error });
      }
    }),
  );
}
