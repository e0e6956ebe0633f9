/**
 * The sign-in form (NAV-4): username and password to `POST /api/auth/login`, which sets the session cookie (SEC-1).
 * The request is a same-origin JSON POST, so it passes the cookie-write checks (SEC-5).
 */
import { api } from './api';
import { el } from './dom';

export function signInForm(onSignedIn: () => void): HTMLFormElement {
  const username = el('input', { name: 'username', autocomplete: 'username', required: true }) as HTMLInputElement;
  const password = el('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }) as HTMLInputElement;
  const message = el('p', { className: 'message', role: 'alert' });
  const form = el('form', { className: 'login' }, [
    el('label', { text: 'Username ' }, [username]),
    el('label', { text: 'Password ' }, [password]),
    el('button', { type: 'submit', text: 'Sign in' }),
    message,
  ]) as HTMLFormElement;
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
  return form;
}

/** NAV-4: ends the cookie session. A bodyless same-origin POST, which SEC-5 lets through. */
export async function signOut(): Promise<boolean> {
  const { status } = await api('/api/auth/logout', { method: 'POST' });
  return status === 204;
}
