// A private certificate authority made for a test, and a server certificate
// it signs for one IP address: what a team serving a room on its own network
// would make with its own CA. Keys come from node's crypto (fast), the
// certificates from node-forge (node has no API to sign one).
import { generateKeyPairSync } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface PrivateCa {
  /** The CA's certificate (PEM): what a client passes as --ca. */
  certPem: string;
  /** A server certificate for `name` (an IP address or a DNS name), signed by this CA, and its key (PEM). */
  serverCertificate(name: string): { certPem: string; keyPem: string };
}

function rsaKeys(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; keyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    privateKey: forge.pki.privateKeyFromPem(keyPem),
    keyPem,
  };
}

let serial = 1;

function certificate(subject: string, publicKey: forge.pki.PublicKey): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = new Date(Date.now() - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 60 * 60 * 1000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  return cert;
}

export function makePrivateCa(name: string): PrivateCa {
  const keys = rsaKeys();
  const ca = certificate(name, keys.publicKey);
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  ca.sign(keys.privateKey, forge.md.sha256.create());
  return {
    certPem: forge.pki.certificateToPem(ca),
    serverCertificate(name) {
      const server = rsaKeys();
      const cert = certificate(name, server.publicKey);
      cert.setIssuer(ca.subject.attributes);
      cert.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [isIP(name) ? { type: 7, ip: name } : { type: 2, value: name }] },
      ]);
      cert.sign(keys.privateKey, forge.md.sha256.create());
      return { certPem: forge.pki.certificateToPem(cert), keyPem: server.keyPem };
    },
  };
}
