/**
 * THEMEVIEW-5: the board page's first script, loaded in <head> before anything is drawn: the viewer's remembered
 * choice (THEMEVIEW-2) replaces the scheme the HTML carries (THEMEVIEW-4), so that the first paint has the scheme
 * the page will keep: `light` or `dark` as `<html data-scheme>`, `auto` no attribute (the style sheet's
 * `prefers-color-scheme` query decides). Without a choice it changes nothing. theme.ts takes over once the page's script runs.
 */
import { storedScheme } from './schemeChoice';

const choice = storedScheme();
if (choice === 'auto') delete document.documentElement.dataset.scheme;
else if (choice) document.documentElement.dataset.scheme = choice;
export {};
