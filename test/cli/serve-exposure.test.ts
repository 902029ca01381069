// What ce serve tells its operator about who can reach the room, and the
// address it names for clients on its own machine. Pure functions: no test
// binds beyond loopback.
import type { networkInterfaces } from 'node:os';
import { expect, test } from 'vitest';
import { exposureWarnings } from '../../src/cli/serve-exposure.js';
import { localAddress } from '../../src/http/server.js';

const interfaces: ReturnType<typeof networkInterfaces> = {
  lo: [
    {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4',
      mac: '00:00:00:00:00:00',
      internal: true,
      cidr: '127.0.0.1/8',
    },
  ],
  eth0: [
    {
      address: '192.0.2.10',
      netmask: '255.255.255.0',
      family: 'IPv4',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '192.0.2.10/24',
    },
    {
      address: '2001:db8::10',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '2001:db8::10/64',
      scopeid: 0,
    },
    // Link-local: named in no address, as it needs its zone.
    {
      address: 'fe80::fc:ff:fe00:1',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: 'fe80::fc:ff:fe00:1/64',
      scopeid: 2,
    },
  ],
};
const tls = { cert: Buffer.from('cert'), key: Buffer.from('key') };

test('loopback, all of 127.0.0.0/8 and ::1, brings no warning', () => {
  for (const host of ['127.0.0.1', '127.0.0.2', '127.1.2.3', 'localhost', '::1']) {
    expect(exposureWarnings({ host, allowOrigin: [] }, 7420, interfaces), host).toEqual([]);
  }
});

test('beyond loopback: who can reach it, the addresses to use for 0.0.0.0, tokens in clear without TLS', () => {
  expect(exposureWarnings({ host: '0.0.0.0', allowOrigin: [] }, 7420, interfaces)).toEqual([
    'listening on 0.0.0.0, beyond loopback: other machines can reach this room',
    'from another machine: http://192.0.2.10:7420/mcp',
    'without TLS, session tokens travel in clear: serve HTTPS with --tls-cert and --tls-key, or put a TLS proxy in front',
    'browsers from other origins are refused until --allow-origin names them',
  ]);
  expect(exposureWarnings({ host: '::', tls, allowOrigin: ['https://app.example'] }, 7420, interfaces)).toEqual([
    'listening on ::, beyond loopback: other machines can reach this room',
    'from another machine: https://192.0.2.10:7420/mcp, https://[2001:db8::10]:7420/mcp',
  ]);
  expect(exposureWarnings({ host: '192.0.2.10', tls, allowOrigin: [] }, 7420, interfaces)).toEqual([
    'listening on 192.0.2.10, beyond loopback: other machines can reach this room',
    'browsers from other origins are refused until --allow-origin names them',
  ]);
});

test('the runtime file and the printed URLs name an address a client can use, never an unspecified one', () => {
  expect(localAddress('0.0.0.0')).toBe('127.0.0.1');
  expect(localAddress('::')).toBe('[::1]');
  expect(localAddress('192.0.2.10')).toBe('192.0.2.10');
  expect(localAddress('2001:db8::10')).toBe('[2001:db8::10]');
});
