// A room served under a path prefix (ce serve --base-path /rooms/NAME), as a
// proxy that routes many rooms by path reaches it: the proxy passes the path
// as the browser sent it, every route of the room (MCP, REST, the page,
// /docs, the probes) lives under the prefix, and nothing answers outside it.
// The prefix is taken off once, as the request arrives, so that every route
// below is written as if the room stood at /; what the room sends back that a
// client follows (Location, the OpenAPI document's server, printed URLs)
// puts it on again.

/** A prefix: `/` and then segments of letters, digits and `-._~`, no trailing slash. */
const PREFIX = /^(?:\/[A-Za-z0-9._~-]+)+$/;

/**
 * What --base-path accepts, normalised (`/rooms/a/` → `/rooms/a`; `/` → `''`,
 * no prefix); null when it is not a path the room can be served under.
 */
export function parseBasePath(text: string): string | null {
  const trimmed = text.trim().replace(/\/+$/, '');
  if (trimmed === '') return text.trim().startsWith('/') ? '' : null;
  if (!PREFIX.test(trimmed)) return null;
  if (trimmed.split('/').some((segment) => segment === '.' || segment === '..')) return null;
  return trimmed;
}

/**
 * Where a request's target falls, for a room under `base`: inside it (the
 * target the routes see, the prefix taken off), the prefix itself with no
 * slash after it (a page there would load its files from the parent), or
 * outside it.
 */
export function underBasePath(base: string, target: string): { inside: string } | { bare: string } | { outside: true } {
  if (!target.startsWith(base)) return { outside: true };
  const rest = target.slice(base.length);
  if (rest === '' || rest.startsWith('?')) return { bare: `${base}/${rest}` };
  if (rest.startsWith('/')) return { inside: rest };
  return { outside: true }; // `/rooms/ab` under `/rooms/a`
}
