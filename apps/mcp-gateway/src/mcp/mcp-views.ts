import { Inject, Injectable } from '@nestjs/common';
import { ResourceNotFoundError, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import type { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps' with { 'resolution-mode': 'import' };
import { APP_CONFIG } from '@adintel/config';
import { readBuiltViews, VIEWS, viewUri } from '@adintel/mcp-views';
import { TOOLS, type ToolView } from '@adintel/tool-catalogue';
import type { AppConfig } from '../config';

/** MCP Apps' MIME type of a view (the compiler checks it against the ext-apps constant). */
export const VIEW_MIME_TYPE: typeof RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';

/** The views some catalogue tool names: the catalogue is the one place that says which tool shows which view. */
export const NAMED_VIEWS: readonly ToolView[] = [...new Set(TOOLS.flatMap((tool) => (tool.view ? [tool.view] : [])))];

/** resources/list: one `ui://` resource per view. */
export const VIEW_RESOURCES: Resource[] = NAMED_VIEWS.map((view) => ({
  uri: viewUri(view),
  name: view,
  title: VIEWS[view].title,
  description: VIEWS[view].description,
  mimeType: VIEW_MIME_TYPE,
}));

/**
 * The views' self-contained HTML, read once at start-up. They need nothing from the network (their CSP says
 * so), hence the empty `csp` in the resource's `_meta.ui`: hosts apply their most restrictive policy.
 */
@Injectable()
export class McpViews {
  private readonly html: ReadonlyMap<ToolView, string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.html = readBuiltViews(config.MCP_VIEWS_DIR);
  }

  read(uri: string): ReadResourceResult {
    const view = NAMED_VIEWS.find((name) => viewUri(name) === uri);
    const text = view && this.html.get(view);
    if (!text) throw new ResourceNotFoundError(uri, `unknown resource ${JSON.stringify(uri)}; resources/list names the views`);
    // ext-apps' McpUiResourceMeta (its package types do not export it under Node resolution).
    const ui = { csp: {}, prefersBorder: true };
    return { contents: [{ uri, mimeType: VIEW_MIME_TYPE, text, _meta: { ui } }] };
  }
}
