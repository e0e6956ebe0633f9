/**
 * The sign-in form (NAV-4): username and password to `POST /api/auth/login`, which sets the session cookie (SEC-1).
 * The request is a same-origin JSON POST, so it passes the cookie-write checks (SEC-5). OIDC-6: where an OpenID
 * provider is configured, a "Sign in with <name>" link starts its sign-in with this page as the return path; where
 * password sign-in is off (AUTH_PROVIDERS=oidc) the form has the link only.
 */
import { api } from './api';
import { el } from './dom';

interface Providers {
  credentials: boolean;
  oidc: { name: string; autoLogin: boolean; signInPath: string } | null;
}

let providers: Promise<Providers> | null = null;
/** The sign-ins the instance offers, asked once per page (`GET /api/auth/providers`). */
function offered(): Promise<Providers> {
  providers ??= api<Providers>('/api/auth/providers').then(({ status, body }) => (status === 200 ? body : { credentials: true, oidc: null }));
  return providers;
}

/** OIDC-21: the provider's sign-in, returning to this page (a path on this origin). */
const providerSignInUrl = (signInPath: string) => `${signInPath}?returnTo=${encodeURIComponent(location.pathname + location.search)}`;

export function signInForm(onSignedIn: () => void): HTMLFormElement {
  const username = el('input', { name: 'username', autocomplete: 'username', required: true }) as HTMLInputElement;
  const password = el('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }) as HTMLInputElement;
  const message = el('p', { className: 'message', role: 'alert' });
  const fields = [el('label', { text: 'Username ' }, [username]), el('label', { text: 'Password ' }, [password]), el('button', { type: 'submit', text: 'Sign in' })];
  const form = el('form', { className: 'login' }, [...fields, message]) as HTMLFormElement;
  form.onsubmit = async (event) => {
    event.preventDefault();
    message.textContent = '';
    const { status, body } = await api<{ message?: string }>('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: username.value, password: password.value }),
    });
    if (status === 200) return onSignedIn();
    message.textContent = body?.message ?? `Sign-in failed (${status})`;
  };
  void offered().then(({ credentials, oidc }) => {
    if (oidc) form.prepend(el('a', { className: 'button oidc', href: providerSignInUrl(oidc.signInPath), text: `Sign in with ${oidc.name}` }));
    if (!credentials) for (const field of fields) field.remove();
  });
  return form;
}

/**
 * OIDC-6: with AUTH_OIDC_AUTO_LOGIN a page that needs a signed-in user goes straight to the provider when nobody is
 * signed in; true when it does.
 */
export async function autoSignIn(): Promise<boolean> {
  const [{ oidc }, session] = await Promise.all([offered(), api('/api/auth/session')]);
  if (!oidc?.autoLogin || session.status === 200) return false;
  location.replace(providerSignInUrl(oidc.signInPath));
  return true;
}

/**
 * NAV-4: ends the cookie session. A bodyless same-origin POST, which SEC-5 lets through. OIDC-17: a session from the
 * provider answers the provider's logout URL, which the page opens ('left'); otherwise the page reloads ('reload').
 */
export async function signOut(): Promise<'reload' | 'left'> {
  const { status, body } = await api<{ endSessionUrl?: string }>('/api/auth/logout', { method: 'POST' });
  if (status === 200 && body?.endSessionUrl) {
    location.assign(body.endSessionUrl);
    return 'left';
  }
  return 'reload';
}
