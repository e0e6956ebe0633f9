/**
 * AGENT-2..4: the pure rules of MCP modes and proposals, without HTTP or a database.
 */
import { loadConfig } from '../../src/config/config';
import { boardIdsOf, callDecision, listedTools, summaryOf } from '../../src/mcp/agent';
import { tools } from '../../src/mcp/tools';

const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const write = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

describe('AGENT-2..4: modes and proposals, pure rules', () => {
  it('AGENT-2: MCP_MODE defaults to propose, MCP_PROPOSAL_TTL to 3600 s; another mode stops the start', () => {
    expect(loadConfig({}).mcpMode).toBe('propose');
    expect(loadConfig({}).mcpProposalTtlSeconds).toBe(3600);
    expect(loadConfig({ MCP_MODE: 'read-only', MCP_PROPOSAL_TTL: '60' })).toMatchObject({ mcpMode: 'read-only', mcpProposalTtlSeconds: 60 });
    expect(() => loadConfig({ MCP_MODE: 'readonly' })).toThrow('MCP_MODE must be one of read-only, propose, write, got "readonly"');
    expect(() => loadConfig({ MCP_PROPOSAL_TTL: '0' })).toThrow(/MCP_PROPOSAL_TTL must be an integer/);
  });

  it('AGENT-3, AGENT-4: a read runs in every mode; a write is refused, proposed or run', () => {
    expect(['read-only', 'propose', 'write'].map((mode: any) => callDecision(mode, read))).toEqual(['run', 'run', 'run']);
    expect(['read-only', 'propose', 'write'].map((mode: any) => callDecision(mode, write))).toEqual(['refuse', 'propose', 'run']);
    const both = [{ name: 'a', annotations: read }, { name: 'b', annotations: write }];
    expect(listedTools('read-only', both).map((tool) => tool.name)).toEqual(['a']);
    expect(listedTools('propose', both).map((tool) => tool.name)).toEqual(['a', 'b']);
  });

  it('AGENT-4: dry runs come from the document: the POST at …/plan, or the operation itself with dryRun=true', () => {
    const byName = new Map(tools().map((tool) => [tool.name, tool.dryRun]));
    expect(byName.get('save_board')).toEqual({ operationId: 'planBoardSave' });
    expect(byName.get('change_layouts')).toEqual({ operationId: 'planBoardLayouts' });
    expect(byName.get('import_board')).toEqual({ operationId: 'importBoard', query: { dryRun: true } });
    expect(byName.get('apply_boards')).toEqual({ operationId: 'applyBoardSet', query: { dryRun: true } });
    expect(byName.get('add_item')).toBeNull();
    // The DELETE at the PUT's path has no dry run: /plan takes the PUT's body.
    expect(byName.get('delete_board')).toBeNull();
    expect(byName.get('get_board')).toBeNull();
  });

  it('AGENT-4: the boards a write touches: the path board, the body boardId, the boards its plan names, each once', () => {
    expect(boardIdsOf({ path: '/api/boards/{id}/items/{itemId}' }, { params: { id: 'b1', itemId: 'i1' } }, null)).toEqual(['b1']);
    expect(boardIdsOf({ path: '/api/boards/items' }, { body: { boardId: 'b2', kind: 'clock' } }, null)).toEqual(['b2']);
    expect(boardIdsOf({ path: '/api/boards/apply' }, { body: {} }, { boards: [{ boardId: 'b3' }, { boardId: null }, { boardId: 'b3' }, { boardId: 'b4' }] })).toEqual(['b3', 'b4']);
    expect(boardIdsOf({ path: '/api/boards' }, { body: { name: 'x' } }, null)).toEqual([]);
  });

  it('AGENT-4: the summary names the tool, the boards at their versions and the counts of the plan', () => {
    const plan = { changes: { items: { added: ['a', 'b'], removed: [], updated: ['c'] }, sections: { added: [], removed: ['s'], updated: [] } } };
    expect(summaryOf('save_board', [{ name: 'home', version: 3 }], plan)).toBe('save_board on board "home" (version 3): items +2 -0 ~1, sections +0 -1 ~0');
    expect(summaryOf('create_board', [], null)).toBe('create_board');
    expect(summaryOf('apply_boards', [], { summary: { create: 1, update: 0, changed: true } })).toBe('apply_boards: create 1, update 0');
  });
});
