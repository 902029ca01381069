// What the opt-in scale-out tests run beside the room, installed on first
// use: Litestream 0.3.13 from npm's @flydotio/litestream-linux-x64 into
// .tmp/scale-out (never into the project), and Debian's nginx.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const tools = fileURLToPath(new URL('../../.tmp/scale-out', import.meta.url));
const LITESTREAM_PACKAGE = '@flydotio/litestream-linux-x64@1.0.1';

/** The Litestream binary, installed when missing. */
export async function litestreamBinary(): Promise<string> {
  const binary = path.join(tools, 'node_modules', '@flydotio', 'litestream-linux-x64', 'litestream');
  if (!existsSync(binary)) {
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', tools, LITESTREAM_PACKAGE], {
      stdio: 'inherit',
    });
  }
  const version = execFileSync(binary, ['version'], { encoding: 'utf8' }).trim();
  if (version !== 'v0.3.13') throw new Error(`${binary} is Litestream ${version}, not v0.3.13`);
  return binary;
}

const NGINX = '/usr/sbin/nginx';

/** Debian's nginx, installed with apt-get when missing (which takes root). */
export function nginxBinary(): string {
  if (!existsSync(NGINX)) {
    if (process.getuid?.() !== 0)
      throw new Error(`no ${NGINX}: install Debian's nginx (apt-get install nginx) and run again`);
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  return NGINX;
}
