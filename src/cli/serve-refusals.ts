// Why ce serve could not start serving, said in the terms of the flags the
// user gave: a port taken or not permitted, an address not this machine's, a
// certificate and key that do not go together or are not PEM.
import { InvalidArgumentError } from 'commander';
import { CommandFailure } from './output.js';

/** Why the room cannot listen where it was asked to, in the terms of the flags given. */
export function cannotListen(error: unknown, { host, port }: { host: string; port: number }): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new CommandFailure(
        'port_in_use',
        `port ${port} on ${host} is taken by another program; choose another with --port, or --port 0 for any free one`,
      );
    case 'EACCES':
      return new CommandFailure(
        'port_not_permitted',
        `port ${port} needs privileges this user lacks; choose one above 1023 with --port, or --port 0 for any free one`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new CommandFailure('host_not_available', `--host ${host} is not an address of this machine`);
    case 'ERR_OSSL_X509_KEY_VALUES_MISMATCH':
      return new InvalidArgumentError('--tls-key is not the key of the certificate in --tls-cert');
    default:
      return tlsFileProblem(error) ?? error;
  }
}

/** OpenSSL refused one of the TLS files (not PEM, or not what it should hold): named by the flag. */
function tlsFileProblem(error: unknown): InvalidArgumentError | null {
  const { code, reason } = error as { code?: unknown; reason?: unknown };
  if (typeof code !== 'string' || !code.startsWith('ERR_OSSL_')) return null;
  return new InvalidArgumentError(
    `--tls-cert and --tls-key must be a PEM certificate and its PEM private key (OpenSSL said: ${String(reason ?? code)})`,
  );
}
