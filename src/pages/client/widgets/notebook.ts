/** VIEW-1, VIEW-3 `notebook`: its markdown rendered by marked and made inert by the page's sanitizer. */
import { Marked } from 'marked';
import { el } from '../dom';
import { sanitizeHtml } from './sanitize';
import { text, type WidgetItem } from './types';

const markdown = new Marked({ async: false, gfm: true, breaks: false });

export function renderNotebook(item: WidgetItem): HTMLElement[] {
  const content = text(item.options, 'content');
  const body = el('div', { className: 'notebook-content' });
  if (content.trim() === '') body.append(el('span', { className: 'placeholder-note', text: 'Empty note' }));
  else body.append(sanitizeHtml(markdown.parse(content) as string));
  return [body];
}
