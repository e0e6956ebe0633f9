/**
 * VIEW-1, VIEW-3 `notebook`: its markdown rendered and sanitized by markdown.ts, a script of its own
 * (/assets/markdown.js) that the page loads the first time a board shows a notebook; until it has loaded the tile
 * shows "Loading note…". Once loaded, notebooks are drawn at once.
 */
import { el } from '../dom';
import { loadScript, markdownScriptUrl } from '../scripts';
import type { MarkdownRenderer } from './markdown';
import { text, type WidgetItem } from './types';

const pending = new Map<HTMLElement, string>();

const renderer = () => (window as unknown as { tesseraMarkdown?: MarkdownRenderer }).tesseraMarkdown;

/** Starts loading the markdown script (the page calls it as soon as it knows the board shows a notebook). */
export const loadRenderer = (): Promise<void> => loadScript(markdownScriptUrl); // PAGE-7: by its hashed URL

function fill(body: HTMLElement, content: string, markdown: MarkdownRenderer): void {
  body.replaceChildren(markdown.render(content));
  delete body.dataset.pending;
}

async function fillPending(): Promise<void> {
  try {
    await loadRenderer();
  } catch {
    for (const body of pending.keys()) body.replaceChildren(el('span', { className: 'placeholder-note', text: 'This note could not be shown.' }));
    pending.clear();
    return;
  }
  const markdown = renderer()!;
  for (const [body, content] of pending) if (body.isConnected) fill(body, content, markdown);
  pending.clear();
  performance.mark('tessera:notes-rendered'); // VIEW-7
}

export function renderNotebook(item: WidgetItem): HTMLElement[] {
  const content = text(item.options, 'content');
  const body = el('div', { className: 'notebook-content' });
  if (content.trim() === '') {
    body.append(el('span', { className: 'placeholder-note', text: 'Empty note' }));
    return [body];
  }
  const markdown = renderer();
  if (markdown) {
    fill(body, content, markdown);
    return [body];
  }
  body.dataset.pending = 'true';
  body.append(el('span', { className: 'placeholder-note', text: 'Loading note…' }));
  if (pending.size === 0) queueMicrotask(() => void fillPending());
  pending.set(body, content);
  return [body];
}
