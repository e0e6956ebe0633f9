/** VIEW-6: the title a placeholder shows for a widget kind. Pure (no DOM). */
const words: Record<string, string> = { dns: 'DNS', rss: 'RSS', vpn: 'VPN', api: 'API', gpu: 'GPU', cpu: 'CPU', ical: 'iCal', ha: 'HA' };

/** `dnsHoleSummary` → "DNS hole summary", `smartHome-entityState` → "Smart home: Entity state". Pure. */
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

/**
 * VIEW-6: the integrations a tile uses, by name where the viewer may list them; the others only counted (an id is
 * never shown). Pure.
 */
export function integrationLabel(ids: readonly string[], names: ReadonlyMap<string, string>): string {
  const known = ids.flatMap((id) => names.get(id) ?? []);
  const others = ids.length - known.length;
  if (others === 0) return known.join(', ');
  const counted = `${others} ${known.length ? 'other ' : ''}integration${others === 1 ? '' : 's'}`;
  return [...known, counted].join(', ');
}
