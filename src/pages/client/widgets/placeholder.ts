/** VIEW-6: every kind the page does not draw gets a clean, labelled placeholder: its title, never a bare kind name. */
import { el } from '../dom';
import { kindTitle } from './titles';
import { text, type WidgetItem } from './types';

export { kindTitle };

export function renderPlaceholder(item: WidgetItem, reason = 'Shows data this page does not fetch.'): HTMLElement[] {
  const own = text(item.options, 'title').trim();
  return [
    el('span', { className: 'widget-title', text: kindTitle(item.kind) }),
    ...(own ? [el('span', { className: 'widget-subtitle', text: own })] : []),
    el('span', { className: 'placeholder-note', text: reason }),
  ];
}
