/** VIEW-1, VIEW-3 `notebook`: its markdown rendered by marked and made inert by the page's sanitizer. */
import { marked } from 'marked';
import { el } from '../dom';
import { sanitizeHtml } from './sanitize';
import { text, type WidgetItem } from './types';

export function renderNotebook(item: WidgetItem): HTMLElement[] {
  const content = text(item.options, 'content');
  const body = el('div', { className: 'notebook-content' });
  if (content.trim() === '') body.append(el('span', { className: 'placeholder-note', text: 'Empty note' }));
  else body.append(sanitizeHtml(marked.parse(content, { async: false, gfm: true, breaks: false }) as string));
  return [body];
}
