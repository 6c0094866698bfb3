import { INTERFACE_VERSION, type Problem } from '@adintel/contracts';
import { inputJsonSchema, outputJsonSchema, TOOLS } from '@adintel/tool-catalogue';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { viewUri } from '@adintel/mcp-views';
import type { ToolView } from '@adintel/tool-catalogue';
import { nothingCharged, receiptFields, type Receipt } from '../invocation/receipt';

export const SERVER_INFO = { name: 'ad-intel', title: 'Ad intelligence', version: INTERFACE_VERSION };

export const SERVER_INSTRUCTIONS =
  'Read-only analytics over ads running on Facebook and TikTok. Start with get_catalog (free) for allowed values ' +
  'and what each tool costs. count_ads (free) sizes a query before search_ads charges 1 token per ad returned; ' +
  'get_usage (free, any frequency) shows your balance. Lists page with `cursor` = pagination.next_cursor. ' +
  'A failed or empty call costs nothing.';

/** tools/list, straight from the catalogue: computed once, identical for every caller. */
export const MCP_TOOLS: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: inputJsonSchema(tool, 'mcp') as Tool['inputSchema'],
  outputSchema: outputJsonSchema(tool) as Tool['outputSchema'],
  annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  ...(tool.view && { _meta: viewMeta(tool.view) }),
}));

/** MCP Apps: the view a host may show with the tool's result (`ui/resourceUri` is the older key some hosts still read). */
function viewMeta(view: ToolView) {
  const ui = { resourceUri: viewUri(view) };
  return { ui, 'ui/resourceUri': ui.resourceUri };
}

/**
 * A tool's answer: the JSON as structuredContent, a text copy for clients that only read text, the receipt in _meta.
 * The text is exactly JSON.stringify of structuredContent.
 */
export function toolResult(result: unknown, receipt: Receipt, requestId: string): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result as Record<string, unknown>,
    _meta: receiptMeta(receipt, requestId),
  };
}

/**
 * A failed call, as a tool result the model can read and act on. The problem is the same object the
 * REST twin answers; it travels as text (and in _meta), not as structuredContent, because clients
 * validate structuredContent against the tool's outputSchema.
 */
export function toolFailure(problem: Problem, requestId: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(problem) }],
    _meta: { ...receiptMeta(nothingCharged(), requestId), problem },
  };
}

/** The same receipt fields REST sends as headers (invocation/receipt.ts). */
function receiptMeta(receipt: Receipt, requestId: string) {
  return { ...receiptFields(receipt), request_id: requestId };
}
