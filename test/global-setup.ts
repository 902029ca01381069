// Runs once per test run, before any test file.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function setup(): void {
  // Tests that run `ce`, the page or `npm start` run dist/: it is built from
  // the sources now, so no test can run a bundle older than the code it checks.
  execFileSync(process.execPath, ['scripts/build.js'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    stdio: 'inherit',
  });
  if (!process.env.MCP_SCHEMA_DIR) {
    console.log(
      'MCP contract tests check the official SDK schemas only: set MCP_SCHEMA_DIR to a folder of the official MCP JSON Schema files to check those too.',
    );
  }
}
