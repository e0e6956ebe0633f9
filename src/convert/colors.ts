/** Colours of the sources as Tessera's `#rrggbb` (CONV-16). */

const hex2 = (n: number) => Math.round(Math.max(0, Math.min(255, n))).toString(16).padStart(2, '0');

/** Hue (degrees), saturation and lightness (percent) as `#rrggbb`. */
export function hslToHex(hue: number, saturation: number, lightness: number): string {
  const s = Math.max(0, Math.min(100, saturation)) / 100;
  const l = Math.max(0, Math.min(100, lightness)) / 100;
  const h = (((hue % 360) + 360) % 360) / 30;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h) % 12;
    return (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255;
  };
  return `#${hex2(channel(0))}${hex2(channel(8))}${hex2(channel(4))}`;
}

/** Glance's colour notation, `H S L` (numbers, optionally with `%`), as `#rrggbb`; null when it is not one. */
export function glanceHsl(value: string): string | null {
  const parts = value.trim().split(/\s+/).map((part) => part.replace(/%$/, ''));
  if (parts.length !== 3 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) return null;
  const [h, s, l] = parts.map(Number);
  if (h > 360 || s > 100 || l > 100) return null;
  return hslToHex(h, s, l);
}
