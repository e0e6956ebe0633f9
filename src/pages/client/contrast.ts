/**
 * THEMEVIEW-3: colour arithmetic for text the board colours (pure, no DOM). WCAG 2 relative luminance and contrast
 * ratio; `readableOn` moves a colour towards white (dark scheme) or black (light scheme) until it reaches AA (4.5:1)
 * on every background given, so a board's primary and secondary colours stay readable as text in both schemes.
 */
const hex = /^#([0-9a-f]{6})$/i;

export function parseHex(color: string): [number, number, number] | null {
  const found = hex.exec(color.trim());
  if (!found) return null;
  const n = parseInt(found[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const toHex = (rgb: number[]) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

export function luminance([r, g, b]: number[]): number {
  const lin = (c: number) => (c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a: number[], b: number[]): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** `color` (#rrggbb), or the nearest mix of it with white (`lighten`) or black that has 4.5:1 on every background. */
export function readableOn(color: string, backgrounds: string[], lighten: boolean): string | null {
  const rgb = parseHex(color);
  const grounds = backgrounds.map(parseHex).filter((b): b is [number, number, number] => b !== null);
  if (!rgb) return null;
  const target = lighten ? 255 : 0;
  for (let step = 0; step <= 20; step++) {
    const mixed = rgb.map((c) => Math.round(c + ((target - c) * step) / 20));
    if (grounds.every((g) => contrast(mixed, g) >= 4.5)) return toHex(mixed);
  }
  return toHex([target, target, target]);
}

/** The text colour for a `color` background: black or white, whichever contrasts more. */
export const textOn = (color: string): string => {
  const rgb = parseHex(color);
  return rgb && contrast(rgb, [0, 0, 0]) > contrast(rgb, [255, 255, 255]) ? '#000000' : '#ffffff';
};
