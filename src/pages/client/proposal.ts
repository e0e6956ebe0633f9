/**
 * The MCP proposal preview page (AGENT-12), in the browser: the proposed board drawn with the changed tiles marked
 * (a save_board proposal: its planned items over the board as it is now), the summary and the plan beside it as text,
 * and Approve and Reject buttons (AGENT-10, AGENT-11). A viewer who may not review it gets the sign-in form. Every
 * text goes in as text, never as HTML (PAGE-5). Bundled by `npm run generate` into generated/pages/proposal.js.
 */
import { api } from './api';
import { el, shortTime, takeServedJson } from './dom';
import { drawGrid, type Board, type Item, type Marks, type Section } from './grid';
import { layoutForWidth } from './layout';
import { boardHref, drawTopbar } from './nav';
import { signInForm } from './signin';
import type { AppView } from './widgets';

interface ProposalView {
  proposalId: string;
  tool: string;
  operationId: string;
  summary: string;
  plan: unknown;
  boards: { boardId: string; name: string; version: number }[];
  client: string | null;
  createdAt: string;
  expiresAt: string;
}
interface Served {
  board: Board;
  apps: AppView[];
  integrations: { id: string; name: string }[];
}
interface PageData {
  proposal: ProposalView;
  arguments: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
  served: Served | null;
}
interface SavePlan {
  changes: { items: { added: string[]; removed: string[]; updated: string[] } };
}

const root = document.getElementById('app')!;

function takeData(): PageData | null {
  return takeServedJson<PageData>('proposal-data');
}

/**
 * AGENT-12: a save_board proposal drawn as the board it would make: the planned sections and items, the items it adds
 * as added tiles, the ones it changes as moved (outlined), the ones it removes where they are now, struck out.
 */
export function proposedBoard(board: Board, body: { sections?: Section[]; items?: Partial<Item>[] }, plan: SavePlan): { board: Board; marks: Marks } {
  const { added, removed, updated } = plan.changes.items;
  const items = (body.items ?? []).map((item) => ({ options: {}, integrationIds: [], layouts: [], ...item }) as Item);
  return {
    board: {
      ...board,
      sections: body.sections ?? board.sections,
      items: [...items.filter((item) => !added.includes(item.id)), ...board.items.filter((item) => removed.includes(item.id))],
    },
    marks: { removed: new Set(removed), moved: new Set(updated), added: items.filter((item) => added.includes(item.id)) },
  };
}

function drawn(data: PageData): HTMLElement | null {
  const served = data.served;
  const plan = data.proposal.plan as SavePlan | null;
  if (!served || data.proposal.operationId !== 'saveBoard' || !plan?.changes?.items) return null;
  const { board, marks } = proposedBoard(served.board, (data.arguments.body ?? {}) as { sections?: Section[]; items?: Partial<Item>[] }, plan);
  const layoutId = layoutForWidth(board, window.innerWidth);
  const layout = board.layouts.find((candidate) => candidate.id === layoutId) ?? board.layouts[0];
  return drawGrid(board, layout, {
    boardId: board.id,
    apps: new Map(served.apps.map((app) => [app.id, app])),
    statuses: new Map(),
    integrations: new Map(served.integrations.map((integration) => [integration.id, integration.name])),
    marks,
  });
}

const text = (value: unknown) => el('pre', { className: 'json', text: JSON.stringify(value, null, 2) });

function decide(data: PageData, action: 'approve' | 'reject', panel: HTMLElement, message: HTMLElement): void {
  for (const button of panel.querySelectorAll('button')) (button as HTMLButtonElement).disabled = true;
  message.textContent = action === 'approve' ? 'Applying…' : 'Rejecting…';
  void api<{ message?: string }>(`/api/mcp/proposals/${encodeURIComponent(data.proposal.proposalId)}/${action}`, { method: 'POST' }).then(({ status, body }) => {
    if (status !== 200) {
      message.textContent = body?.message ?? `Failed (${status})`;
      return;
    }
    const links = data.proposal.boards.filter(() => data.proposal.operationId !== 'deleteBoard').map((board) => el('a', { className: 'board-link', href: boardHref(board.name), text: `Open board ${board.name}` }));
    message.replaceChildren(action === 'approve' ? 'Approved: the change was written. ' : 'Rejected: nothing was written. ', ...links);
    panel.querySelector('.actions')?.remove();
  });
}

function render(data: PageData): void {
  const { proposal } = data;
  document.title = `Proposal: ${proposal.tool}`;
  const message = el('p', { className: 'message', role: 'status' });
  const panel = el('aside', { className: 'details proposal' }, [
    el('h2', { text: 'Proposed change' }),
    el('p', { className: 'summary', text: proposal.summary }),
    el('p', { className: 'facts', text: `By ${proposal.client ?? 'an MCP client'}, ${shortTime(proposal.createdAt)}; expires ${shortTime(proposal.expiresAt)}.` }),
    el('h3', { text: 'Boards' }),
    el('ul', { className: 'boards' }, proposal.boards.map((board) => el('li', { text: `${board.name} (version ${board.version})` }))),
    ...(proposal.plan === null ? [el('h3', { text: 'Arguments' }), text(data.arguments)] : [el('h3', { text: 'Plan' }), text(proposal.plan)]),
    el('div', { className: 'actions' }, [
      el('button', { className: 'approve', type: 'button', text: 'Approve', onclick: () => decide(data, 'approve', panel, message) }),
      el('button', { className: 'reject', type: 'button', text: 'Reject', onclick: () => decide(data, 'reject', panel, message) }),
    ]),
    message,
  ]);
  const grid = drawn(data);
  const legend = grid ? [el('p', { className: 'legend', text: 'Added tiles are dashed, changed ones outlined, removed ones struck out.' })] : [];
  root.replaceChildren(el('header', {}, [el('h1', { text: `Proposal: ${proposal.tool}` })]), ...legend, el('div', { className: 'workspace' }, [...(grid ? [grid] : []), panel]));
}

function notFound(): void {
  document.title = 'Proposal not found';
  const form = signInForm(() => location.reload()); // NAV-4
  root.replaceChildren(
    el('h1', { text: 'Proposal not found' }),
    el('p', { text: 'It does not exist, was applied, rejected or has expired, or you may not review it. Sign in to review proposals.' }),
    form,
  );
}

const data = takeData();
if (data) render(data);
else notFound();
void drawTopbar(null, { signIn: data !== null });
