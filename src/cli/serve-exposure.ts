// What ce serve says about who can reach a room bound beyond loopback: the
// addresses other machines use, tokens in clear without TLS, browsers refused
// until --allow-origin names them. Nothing on loopback.
import { networkInterfaces } from 'node:os';

/** Addresses only this machine reaches: localhost, ::1 and all of 127.0.0.0/8. */
const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** The URLs other machines may use for a room bound to an unspecified address: one per interface. */
function addressesOf(
  host: string,
  port: number,
  scheme: string,
  interfaces: ReturnType<typeof networkInterfaces> | undefined,
): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [];
  // Asked only here: a room on loopback, as most are, has no use for the list of interfaces.
  return (
    Object.values(interfaces ?? networkInterfaces())
      .flat()
      // A link-local IPv6 address (fe80::/10) is no use without its zone, which a URL cannot well carry.
      .filter(
        (net) => net && !net.internal && (host === '::' ? !/^fe[89ab]/i.test(net.address) : net.family === 'IPv4'),
      )
      .map((net) => `${scheme}://${net!.family === 'IPv6' ? `[${net!.address}]` : net!.address}:${port}`)
  );
}

/** What ce serve says on stderr about who can reach the room: nothing on loopback. */
export function exposureWarnings(
  settings: { host: string; tls?: object | undefined; allowOrigin: readonly string[] },
  port: number,
  interfaces?: ReturnType<typeof networkInterfaces>,
): string[] {
  if (isLoopback(settings.host)) return [];
  const others = addressesOf(settings.host, port, settings.tls ? 'https' : 'http', interfaces);
  return [
    `listening on ${settings.host}, beyond loopback: other machines can reach this room`,
    ...(others.length > 0 ? [`from another machine: ${others.map((base) => `${base}/mcp`).join(', ')}`] : []),
    ...(settings.tls
      ? []
      : [
          'without TLS, session tokens travel in clear: serve HTTPS with --tls-cert and --tls-key, or put a TLS proxy in front',
        ]),
    ...(settings.allowOrigin.length === 0
      ? ['browsers from other origins are refused until --allow-origin names them']
      : []),
  ];
}
