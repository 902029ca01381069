// ce serve's flags: how each is read, and the usage error that names it.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { parseBasePath } from '../http/base-path.js';
import { parseAllowedHost } from '../http/middleware/room-names.js';
import { list, wholeNumber } from './options.js';

export interface ServeOptions {
  host: string;
  port: number;
  allowOrigin: string[];
  allowHost: string[];
  basePath?: string;
  maxStreams: number;
  fourEyes?: boolean;
  json?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}

/** A repeatable flag whose values may each be a comma-separated list. */
export function collect(text: string, previous: string[]): string[] {
  return [...previous, ...list(text).filter((item) => item !== '')];
}

/** --allow-host values: host names or addresses, with a port or not; anything else is a usage error. */
export function collectHosts(text: string, previous: string[]): string[] {
  const hosts = list(text).filter((item) => item !== '');
  for (const host of hosts) {
    if (parseAllowedHost(host) === null) {
      throw new InvalidArgumentError(
        `--allow-host: ${JSON.stringify(host)} is not a host name; give NAME or NAME:PORT (no scheme, no path), e.g. rooms.example.net`,
      );
    }
  }
  return [...previous, ...hosts];
}

/** --base-path: a path of plain segments, normalised ('' for none). */
export function basePath(text: string): string {
  const base = parseBasePath(text);
  if (base === null) {
    throw new InvalidArgumentError(
      `--base-path: ${JSON.stringify(text)} is not a path prefix; give /SEGMENT[/SEGMENT...] of letters, digits and -._~, e.g. /rooms/notes`,
    );
  }
  return base;
}

/** A whole number of at least 1. */
export const positive = (flag: string) => {
  const whole = wholeNumber(flag);
  return (text: string): number => {
    const n = whole(text);
    if (n < 1) throw new InvalidArgumentError(`${flag} must be at least 1 (got "${text}")`);
    return n;
  };
};

/** The certificate and key, both or neither; a file that cannot be read is a usage error naming its flag. */
export function tlsOf({ tlsCert, tlsKey }: ServeOptions): { tls?: { cert: Buffer; key: Buffer } } {
  if (tlsCert === undefined && tlsKey === undefined) return {};
  if (tlsCert === undefined || tlsKey === undefined) {
    throw new InvalidArgumentError('--tls-cert and --tls-key go together: give both for HTTPS');
  }
  const read = (flag: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new InvalidArgumentError(
        `${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`,
      );
    }
  };
  return { tls: { cert: read('--tls-cert', tlsCert), key: read('--tls-key', tlsKey) } };
}
