// The names a room answers to. A web page elsewhere can rebind its own name
// to 127.0.0.1 (DNS rebinding): the browser then sends the page's name as
// Host, and the request's Origin agrees with it. So Host must be one of the
// room's own names, and Origin is compared with those names, never with
// the request's own Host.
import type Koa from 'koa';
import { Refusal } from '../refusal.js';

const RPC_INVALID_REQUEST = -32600;

export interface RoomNamesOptions {
  /** The address the room binds (--host). */
  bindHost: string;
  /** --allow-host: `NAME` (any port) or `NAME:PORT`. */
  allowHosts?: readonly string[];
  /** --allow-origin: whole origins allowed besides the room's names. */
  allowOrigins?: readonly string[];
  /** With an unspecified bind address (0.0.0.0, ::): this machine's own addresses, reachable as they are. */
  interfaceAddresses?: readonly string[];
  /** The room's settings (engine roomSettings): more hosts and origins, changed while the room runs. */
  settings?: () => { allowed_hosts: readonly string[]; allowed_origins: readonly string[] };
  /** Told the first time each name is refused (up to MAX_REFUSED_SAID names): the operator's warning. */
  onRefused?: (warning: string) => void;
}

/**
 * Names whose refusal is told (onRefused), once each: behind a proxy that
 * sends its own name, every request is refused and the log said only 403;
 * a scanner trying many names must not fill the log.
 */
export const MAX_REFUSED_SAID = 32;

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** An address as it stands in a Host header: IPv6 in brackets, lower case. */
const asHostName = (address: string): string => {
  const name = address.toLowerCase();
  return name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
};

/** `name:port`, `[v6]:port` or `name` → its name and port (null when none is given). */
function splitHost(host: string): { name: string; port: string | null } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
  return match ? { name: match[1]!, port: match[2] ?? null } : { name: host, port: null };
}

/**
 * What --allow-host accepts: a DNS name or an IP address, optionally with a
 * port; never a scheme, a path or a wildcard. Returns the normalised entry,
 * or null when it is not one.
 */
export function parseAllowedHost(text: string): string | null {
  const host = text.trim().toLowerCase();
  const { name, port } = splitHost(host);
  const dnsName = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/;
  const ipv6 = /^\[[0-9a-f:.]+\]$/;
  if (!dnsName.test(name) && !ipv6.test(name)) return null;
  if (port !== null && (Number(port) < 1 || Number(port) > 65535)) return null;
  return host;
}

/** Host values allowed exactly (`name:port`), and names allowed on any port. */
interface HostSet {
  exact: Set<string>;
  anyPort: Set<string>;
}

function hostSet(entries: readonly string[]): HostSet {
  const set: HostSet = { exact: new Set(), anyPort: new Set() };
  for (const entry of entries) {
    const host = parseAllowedHost(entry);
    if (host === null) throw new Error(`not a host name: ${entry}`);
    if (splitHost(host).port === null) set.anyPort.add(host);
    else set.exact.add(host);
  }
  return set;
}

const inHostSet = (set: HostSet, host: string): boolean => set.exact.has(host) || set.anyPort.has(splitHost(host).name);

const withoutSlash = (origin: string): string => origin.replace(/\/$/, '');

export class RoomNames {
  /** The room's own names and the command line's --allow-host. */
  private readonly own: HostSet;
  private readonly origins: Set<string>;
  /** The settings' names, made again when the settings change. */
  private fromSettings: { of: unknown; hosts: HostSet; origins: Set<string> } | null = null;
  /** Refused names already told (`Host x`, `Origin y`). */
  private readonly said = new Set<string>();

  constructor(private readonly options: RoomNamesOptions) {
    this.origins = new Set((options.allowOrigins ?? []).map((origin) => withoutSlash(origin.toLowerCase())));
    this.own = hostSet(options.allowHosts ?? []);
  }

  private settingsNames(): { hosts: HostSet; origins: Set<string> } | null {
    const settings = this.options.settings?.();
    if (settings === undefined) return null;
    if (this.fromSettings?.of !== settings) {
      this.fromSettings = {
        of: settings,
        hosts: hostSet(settings.allowed_hosts),
        origins: new Set(settings.allowed_origins.map((origin) => withoutSlash(origin.toLowerCase()))),
      };
    }
    return this.fromSettings;
  }

  /** Called once the room listens: its own names are those of its port. */
  listening(port: number, scheme: 'http' | 'https'): void {
    const bind = asHostName(this.options.bindHost);
    const names = new Set(LOOPBACK_NAMES);
    if (WILDCARD.has(bind)) for (const address of this.options.interfaceAddresses ?? []) names.add(asHostName(address));
    else names.add(bind);
    const defaultPort = scheme === 'https' ? 443 : 80;
    for (const name of names) {
      this.own.exact.add(`${name}:${port}`);
      // A client leaves the port out of Host when it is the scheme's own.
      if (port === defaultPort) this.own.exact.add(name);
    }
  }

  hostAllowed(host: string): boolean {
    const value = host.toLowerCase();
    if (inHostSet(this.own, value)) return true;
    const settings = this.settingsNames();
    return settings !== null && inHostSet(settings.hosts, value);
  }

  /** Tells onRefused of a refused Host or Origin the first time it is refused; the value quoted, at most 200 characters. */
  refused(header: 'Host' | 'Origin', value: string): void {
    const key = `${header} ${value}`;
    if (!this.options.onRefused || this.said.has(key) || this.said.size >= MAX_REFUSED_SAID) return;
    this.said.add(key);
    const shown = JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
    const fix = header === 'Host' ? '--allow-host NAME adds one' : '--allow-origin URL allows one';
    this.options.onRefused(
      `refused requests naming ${header} ${shown}, not a name of this room (ce serve ${fix}); said once for each name`,
    );
  }

  /** An origin allowed by name (--allow-origin, the settings), or one whose host is a name of this room. */
  originAllowed(origin: string): boolean {
    const named = origin.toLowerCase();
    if (this.origins.has(named) || this.settingsNames()?.origins.has(named)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null`, or not an origin at all
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && this.hostAllowed(url.host);
  }
}

/** Host must name this room: anything else is refused before authentication, whatever the route. */
export function hostRefusal(names: RoomNames, host: string): Refusal | null {
  if (host !== '' && names.hostAllowed(host)) return null;
  names.refused('Host', host);
  return new Refusal(
    403,
    'forbidden',
    host === ''
      ? 'the request has no Host header; it must name this room'
      : `the Host header names ${host}, which is not a name of this room; ce serve --allow-host NAME adds one`,
    RPC_INVALID_REQUEST,
  );
}

/** Browsers send Origin; a page elsewhere must not drive the room through a user's browser. No Origin is allowed. */
export function checkOrigin(names: RoomNames): Koa.Middleware {
  return async (ctx, next) => {
    const refusal = originRefusal(names, ctx.get('origin'));
    if (refusal) throw refusal;
    await next();
  };
}

/**
 * Origins of these schemes are what --allow-origin takes (web-origin.json, checked where it is given); a browser
 * sends `null` for a sandboxed page or a file, which no setting allows.
 */
const WEB_SCHEME = /^https?:\/\//i;

/** Why a request from `origin` (the Origin header, '' when none) is refused; null when it is not. */
export function originRefusal(names: RoomNames, origin: string): Refusal | null {
  if (!origin || names.originAllowed(origin)) return null;
  names.refused('Origin', origin);
  return new Refusal(
    403,
    'forbidden',
    WEB_SCHEME.test(origin)
      ? `origin ${origin} is not allowed: it is not a name of this room; ce serve --allow-origin ${origin} allows it`
      : `origin ${origin} is not allowed: only an http:// or https:// origin can be (a sandboxed page, or one opened from a file, has none)`,
    RPC_INVALID_REQUEST,
  );
}
