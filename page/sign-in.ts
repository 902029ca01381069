// The page's way in: the token from the address or the form, kept in
// sessionStorage only, and what the page shows while no session holds.
import { $ } from './dom.js';

export const TOKEN_KEY = 'commonroom.token';

/** The token in the fragment, if any, moved to sessionStorage; the address and its history entry lose it. */
export function tokenFromAddress(): string | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  if (location.hash) history.replaceState(null, '', `${location.pathname}${location.search}`);
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  return sessionStorage.getItem(TOKEN_KEY);
}

/** The skip link leads to what is shown: the sign-in form, or the room once signed in. */
export function skipTo(id: string, text: string): void {
  const skip = $('skip') as HTMLAnchorElement;
  skip.href = `#${id}`;
  skip.textContent = text;
}

export function showSignIn(message: string): void {
  $('room').hidden = true;
  $('room').replaceChildren();
  $('who').replaceChildren();
  $('live').textContent = '';
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-message').textContent = message;
  skipTo('sign-in', 'Skip to sign in');
}
