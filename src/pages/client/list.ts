/**
 * The board list's script (PAGE-6, NAV-2, NAV-3): when the server named a desktop and a mobile home board (it could
 * not tell the device), opens the one for this window's width; otherwise draws the top bar over the list. Bundled by
 * `npm run generate` into generated/pages/list.js.
 */
import { isNarrow } from './layout';
import { boardHref, drawTopbar } from './nav';

const root = document.getElementById('app')!;
const { homeDesktop, homeMobile } = root.dataset;
const home = homeDesktop === undefined && homeMobile === undefined ? '' : isNarrow() ? homeMobile : homeDesktop;
if (home) location.replace(boardHref(home));
else void drawTopbar(null);
