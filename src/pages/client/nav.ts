/**
 * The top bar of every page (NAV-3, NAV-4): a link to `/`, the menu of the boards the caller can read (`GET
 * /api/boards`, the same list operation as the API), and who is signed in with a sign-out button, or a sign-in form.
 * Board names go in as text; links are built from the name, percent-encoded.
 */
import { api } from './api';
import { el } from './dom';
import { signInForm, signOut } from './signin';

interface Session {
  username: string;
  authMethod: 'apiKey' | 'session';
}
interface BoardEntry {
  name: string;
  isPublic: boolean;
  isHome: boolean;
  isMobileHome: boolean;
}

export const boardHref = (name: string) => `/boards/${encodeURIComponent(name)}`;

function boardsMenu(boards: BoardEntry[], current: string | null): HTMLElement {
  const entries = boards.map((board) => {
    const marks = [board.isHome ? 'home' : '', board.isMobileHome ? 'phone home' : '', board.isPublic ? '' : 'private'].filter(Boolean);
    return el('li', { className: board.name === current ? 'current' : '' }, [
      el('a', { href: boardHref(board.name), text: board.name }),
      ...(marks.length ? [el('span', { className: 'marks', text: ` ${marks.join(', ')}` })] : []),
    ]);
  });
  return el('details', { className: 'boards-menu' }, [
    el('summary', { text: 'Boards' }),
    el('ul', {}, entries.length ? entries : [el('li', { className: 'none', text: 'No boards you can read' })]),
  ]);
}

/**
 * Draws the top bar. `signIn: false` leaves the sign-in form out (the not-found page shows its own). Signing in or
 * out reloads the page: what the caller may see changes with it.
 */
export async function drawTopbar(current: string | null, options: { signIn?: boolean } = {}): Promise<void> {
  const bar = document.getElementById('topbar');
  if (!bar) return;
  const [session, boards] = await Promise.all([api<Session>('/api/auth/session'), api<BoardEntry[]>('/api/boards')]);
  const user = session.status === 200 ? session.body : null;
  const account = user
    ? el('div', { className: 'account' }, [
        el('span', { className: 'who', text: user.username }),
        el('button', {
          className: 'signout',
          type: 'button',
          text: 'Sign out',
          onclick: () => void signOut().then((next) => next === 'reload' && location.reload()),
        }),
      ])
    : options.signIn === false
      ? el('div', { className: 'account' })
      : el('details', { className: 'signin' }, [el('summary', { text: 'Sign in' }), signInForm(() => location.reload())]);
  bar.replaceChildren(el('a', { className: 'brand', href: '/', text: 'Tessera' }), boardsMenu(boards.status === 200 ? boards.body : [], current), account);
  const menus = [...bar.querySelectorAll('details')];
  // One menu open at a time; a click elsewhere or Escape closes them.
  for (const menu of menus) menu.addEventListener('toggle', () => menu.open && menus.forEach((other) => other !== menu && (other.open = false)));
  if (!closing) {
    closing = true;
    document.addEventListener('click', (event) => {
      for (const menu of document.querySelectorAll<HTMLDetailsElement>('.topbar details[open]')) if (!menu.contains(event.target as Node)) menu.open = false;
    });
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') for (const menu of document.querySelectorAll<HTMLDetailsElement>('.topbar details[open]')) menu.open = false;
    });
  }
}

let closing = false;
