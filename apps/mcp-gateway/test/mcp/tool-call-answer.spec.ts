import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { renderProblem } from '../../src/problems/problem';
import { toolCallAnswer, toolCallError, toolFailure, toolResult } from '../../src/mcp/mcp-tools';

describe('the JSON-RPC answer the gateway writes for a tools/call', () => {
  const page = { data: [{ id: 'ad-1', title: 'a "quoted" \\ title\u2028' }], pagination: { next_cursor: null, has_more: false } };

  it('is the JSON of {jsonrpc, id, result}, the result written once and shared by the text block and structuredContent', () => {
    const result = toolResult(page, { status: 'settled', charged: 1, remaining: 9 }, 'req-1');
    for (const id of [7, 'call-7']) {
      expect(JSON.parse(toolCallAnswer(id, result))).toEqual({ jsonrpc: '2.0', id, result });
    }
    expect(JSON.parse(toolCallAnswer(1, result)).result.structuredContent).toEqual(page);
  });

  it('serialises a failure (no structuredContent) as it is', () => {
    const problem = renderProblem(
      { status: 402, code: 'insufficient_balance', detail: 'needs "50" tokens' },
      { baseUrl: 'http://localhost:3000', instance: '/mcp#search_ads', requestId: 'req-2' },
    );
    const failure = toolFailure(problem, 'req-2');
    expect(failure.structuredContent).toBeUndefined();
    expect(JSON.parse(toolCallAnswer(2, failure))).toEqual({ jsonrpc: '2.0', id: 2, result: failure });
  });

  it('turns a thrown error into a JSON-RPC error the way the SDK does: an McpError keeps its code, anything else is -32603', () => {
    expect(JSON.parse(toolCallError(3, new McpError(ErrorCode.InvalidParams, 'unknown tool "x"')))).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: ErrorCode.InvalidParams, message: 'MCP error -32602: unknown tool "x"' },
    });
    expect(JSON.parse(toolCallError(4, new Error('boom')))).toEqual({ jsonrpc: '2.0', id: 4, error: { code: ErrorCode.InternalError, message: 'boom' } });
  });
});
