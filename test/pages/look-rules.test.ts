/**
 * The page's scheme and search rules that need no browser (THEMEVIEW-1, THEMEVIEW-3, SEARCH-2, SEARCH-4), on the
 * modules the page bundles, and the contrast of the style sheet's own colours in both schemes (A11Y-3: WCAG AA).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contrast, parseHex, readableOn, textOn } from '../../src/pages/client/contrast';
import { matchEntries, webSearchHref } from '../../src/pages/client/searchRules';

describe('THEMEVIEW-3 colours as text', () => {
  it('THEMEVIEW-3: a colour too faint for a background is moved towards white (dark) or black (light) until 4.5:1; a readable one is kept', () => {
    const [light, surface, dark, darkSurface] = ['#f6f8fa', '#ffffff', '#0d1117', '#161b22'];
    expect(readableOn('#0969da', [light, surface], false)).toBe('#0969da');
    for (const color of ['#0969da', '#2f6feb', '#8250df', '#000000', '#ffcc00', '#57606a']) {
      const onLight = readableOn(color, [light, surface], false)!;
      const onDark = readableOn(color, [dark, darkSurface], true)!;
      for (const ground of [light, surface]) expect(contrast(parseHex(onLight)!, parseHex(ground)!)).toBeGreaterThanOrEqual(4.5);
      for (const ground of [dark, darkSurface]) expect(contrast(parseHex(onDark)!, parseHex(ground)!)).toBeGreaterThanOrEqual(4.5);
    }
    expect(readableOn('#0969da', [dark, darkSurface], true)).not.toBe('#0969da');
    expect(readableOn('red', [light], false)).toBeNull();
    expect(textOn('#0969da')).toBe('#ffffff');
    expect(textOn('#ffcc00')).toBe('#000000');
  });

  it("A11Y-3: the style sheet's text colours reach 4.5:1 on its backgrounds in both schemes", () => {
    const css = readFileSync(path.resolve(__dirname, '../../src/pages/client/board.css'), 'utf8');
    const block = (selector: string) => {
      const start = css.indexOf(selector);
      const text = css.slice(start, css.indexOf('}', start));
      return Object.fromEntries([...text.matchAll(/--([a-z-]+): (#[0-9a-f]{3,6})\b/gi)].map((m) => [m[1], m[2].length === 4 ? `#${[...m[2].slice(1)].map((c) => c + c).join('')}` : m[2]]));
    };
    for (const scheme of [block(':root { --fg'), block(':root[data-scheme="dark"]')]) {
      for (const text of ['fg', 'muted', 'link', 'danger']) {
        for (const ground of ['bg', 'surface', 'selected']) {
          expect({ text, ground, ratio: contrast(parseHex(scheme[text])!, parseHex(scheme[ground])!) >= 4.5 }).toEqual({ text, ground, ratio: true });
        }
      }
      expect(contrast(parseHex(scheme.fg)!, parseHex(scheme.highlight)!)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(parseHex(scheme.fg)!, parseHex(scheme.badge)!)).toBeGreaterThanOrEqual(4.5);
    }
  });
});

const entries = [
  { name: 'Grafana', description: 'Dashboards', href: 'https://grafana.example/' },
  { name: 'Home Assistant', description: 'Lights and heating', href: 'https://ha.example/' },
  { name: 'Paperless', description: 'Scanned letters', href: 'https://docs.example/' },
  { name: 'Jellyfin', description: null, href: 'https://media.example/' },
  { name: 'Ästhetik Café', description: null, href: '/local' },
];

describe('SEARCH-2 matching', () => {
  it('SEARCH-2: name prefix first, then a word of the name, then inside the name, the description, the address; board order within a rank', () => {
    // Ästhetik by its first letter (accents folded), Home Assistant by a word, Grafana and Paperless inside the name, Jellyfin by its address.
    expect(matchEntries(entries, 'a').map((e) => e.name)).toEqual(['Ästhetik Café', 'Home Assistant', 'Grafana', 'Paperless', 'Jellyfin']);
    expect(matchEntries(entries, 'ass').map((e) => e.name)).toEqual(['Home Assistant']);
    expect(matchEntries(entries, 'LETTERS').map((e) => e.name)).toEqual(['Paperless']);
    expect(matchEntries(entries, 'media.').map((e) => e.name)).toEqual(['Jellyfin']);
    expect(matchEntries(entries, 'cafe').map((e) => e.name)).toEqual(['Ästhetik Café']);
    expect(matchEntries(entries, '  ')).toEqual([]);
    expect(matchEntries(entries, 'nothing like it')).toEqual([]);
  });
});

describe('SEARCH-4 web search', () => {
  it('SEARCH-4: the template gets the query encoded in place of {query}; only an http(s) template with {query} is used', () => {
    expect(webSearchHref('https://duckduckgo.com/?q={query}', ' a&b c ')).toBe('https://duckduckgo.com/?q=a%26b%20c');
    expect(webSearchHref('https://www.google.com/search?q={query}', 'x/y')).toBe('https://www.google.com/search?q=x%2Fy');
    expect(webSearchHref('https://www.startpage.com/do/search?query={query}&x={query}', 'é')).toBe('https://www.startpage.com/do/search?query=%C3%A9&x=%C3%A9');
    expect(webSearchHref('javascript:alert({query})', 'x')).toBeNull();
    expect(webSearchHref('/search?q={query}', 'x')).toBeNull();
    expect(webSearchHref('https://example.com/search', 'x')).toBeNull();
    expect(webSearchHref(null, 'x')).toBeNull();
    expect(webSearchHref('https://duckduckgo.com/?q={query}', '   ')).toBeNull();
  });
});
