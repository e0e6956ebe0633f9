/** VIEW-6: every kind the page does not draw gets a clean, labelled placeholder: its title, never a bare kind name. */
import { el } from '../dom';
import { text, type WidgetItem } from './types';

const words: Record<string, string> = { dns: 'DNS', rss: 'RSS', vpn: 'VPN', gpu: 'GPU', cpu: 'CPU', ical: 'iCal', ha: 'HA' };

/** `dnsHoleSummary` → "DNS hole summary", `smartHome-entityState` → "Smart home: entity state". Pure. */
export function kindTitle(kind: string): string {
  const sentence = (part: string) =>
    part
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .split(/[\s_]+/)
      .filter(Boolean)
      .map((word, i) => words[word.toLowerCase()] ?? (i === 0 ? word[0].toUpperCase() + word.slice(1).toLowerCase() : word.toLowerCase()))
      .join(' ');
  const parts = kind.split('-').filter(Boolean).map(sentence);
  return parts.length ? parts.join(': ') : 'Widget';
}

export function renderPlaceholder(item: WidgetItem, reason = 'Shows data this page does not fetch.'): HTMLElement[] {
  const own = text(item.options, 'title').trim();
  return [
    el('span', { className: 'widget-title', text: kindTitle(item.kind) }),
    ...(own ? [el('span', { className: 'widget-subtitle', text: own })] : []),
    el('span', { className: 'placeholder-note', text: reason }),
  ];
}
