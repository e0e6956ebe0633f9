/** PWA-1: the board's web app manifest, the pure rule (src/pages/manifest.ts). The route is tested in chrome.test.ts. */
import { boardManifest } from '../../src/pages/manifest';

const icons = { src192: '/assets/tessera-192.png?v=1', src512: '/assets/tessera-512.png?v=2' };
const board = { name: 'home-lab', pageTitle: null, logoImageUrl: null, primaryColor: null };

describe('the web app manifest of a board (PWA-1)', () => {
  it('PWA-1: the board\'s name, Tessera\'s icons and colour when the board sets none; standalone, from /', () => {
    expect(boardManifest(board, icons)).toEqual({
      name: 'home-lab',
      short_name: 'home-lab',
      start_url: '/',
      scope: '/',
      display: 'standalone',
      theme_color: '#0969da',
      background_color: '#f6f8fa',
      icons: [
        { src: '/assets/tessera-192.png?v=1', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: '/assets/tessera-512.png?v=2', sizes: '512x512', type: 'image/png', purpose: 'any' },
      ],
    });
  });

  it('PWA-1: pageTitle as the name, primaryColor (lower case) as the theme colour, the logo first', () => {
    const manifest = boardManifest({ ...board, pageTitle: '  Home Lab  ', primaryColor: '#2F6FEB', logoImageUrl: 'https://example.com/logo.svg' }, icons);
    expect([manifest.name, manifest.short_name, manifest.theme_color]).toEqual(['Home Lab', 'home-lab', '#2f6feb']);
    expect(manifest.icons[0]).toEqual({ src: 'https://example.com/logo.svg', sizes: 'any', purpose: 'any' });
    expect(manifest.icons).toHaveLength(3);
    expect(boardManifest({ ...board, logoImageUrl: '/files/logo.png' }, icons).icons[0].src).toBe('/files/logo.png');
  });

  it('PWA-1: a logo that is not an http(s) address or a path of the instance, and a colour not #rrggbb, are left out', () => {
    for (const logo of ['javascript:alert(1)', 'data:image/png;base64,AAAA', '//evil.example.com/x.png', 'not a url', ''])
      expect(boardManifest({ ...board, logoImageUrl: logo }, icons).icons.map((icon) => icon.sizes)).toEqual(['192x192', '512x512']);
    for (const color of ['red', '#fff', 'rgb(1,2,3)', '#12345g']) expect(boardManifest({ ...board, primaryColor: color }, icons).theme_color).toBe('#0969da');
    expect(boardManifest({ ...board, pageTitle: '   ' }, icons).name).toBe('home-lab');
  });
});
