/**
 * Quiet chrome (PAGE-9): a viewer sees the board. The board's version, where it is managed, its layouts and its
 * history sit behind one "Board details" control, closed for everybody until opened; whether it is open is
 * remembered in this browser (localStorage), for every board. At desktop width the open panel stands beside the
 * grid; at phone width (NAV-5) it is a drawer over the page, so the grid keeps the window's width.
 */
import { el } from './dom';

const storageKey = 'tessera:board-details';

function stored(): boolean {
  try {
    return window.localStorage.getItem(storageKey) === 'open';
  } catch {
    return false; // storage refused (a privacy setting): closed, as for a first visit
  }
}

let open = stored();

function remember(value: boolean): void {
  open = value;
  try {
    window.localStorage.setItem(storageKey, value ? 'open' : 'closed');
  } catch {
    // not remembered; the page still opens and closes
  }
}

export const detailsOpen = () => open;

function setOpen(value: boolean): void {
  remember(value);
  const panel = document.getElementById('board-details');
  if (panel) panel.hidden = !value;
  for (const toggle of Array.from(document.querySelectorAll<HTMLElement>('.details-toggle'))) toggle.setAttribute('aria-expanded', String(value));
}

// Escape closes the open panel (the drawer at phone width covers the page) and gives the focus back to the button.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || !open) return;
  setOpen(false);
  document.querySelector<HTMLElement>('.details-toggle')?.focus();
});

/** The one control: a disclosure button for the panel (`aria-expanded`, `aria-controls`). */
export function detailsToggle(): HTMLElement {
  const button = el('button', { className: 'details-toggle', type: 'button', text: 'Board details', onclick: () => setOpen(!open) });
  button.setAttribute('aria-expanded', String(open));
  button.setAttribute('aria-controls', 'board-details');
  return button;
}

/** The panel holding `parts`, hidden while closed. */
export function detailsPanel(parts: HTMLElement[]): HTMLElement {
  const close = el('button', { className: 'details-close', type: 'button', ariaLabel: 'Close board details', text: '×', onclick: () => setOpen(false) });
  const panel = el('aside', { className: 'details', ariaLabel: 'Board details' }, [el('div', { className: 'details-head' }, [el('h2', { text: 'Board details' }), close]), ...parts]);
  panel.id = 'board-details';
  panel.hidden = !open;
  return panel;
}

/** What the header used to show every viewer: the version, and the source a managed board is declared in (FLEET-1). */
export function boardFacts(board: { version: number; managedBy?: string | null }): HTMLElement {
  return el('p', { className: 'facts' }, [
    el('span', { className: 'version', text: `version ${board.version}` }),
    ...(board.managedBy ? [el('span', { className: 'managed-by', text: `managed by ${board.managedBy}` })] : []),
  ]);
}
