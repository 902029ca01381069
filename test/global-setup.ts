// Runs once per test run, before any test file, and once after the last.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MINTED_TOKEN } from './helpers/suite-logs.js';

export default function setup(): () => void {
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
  if (!process.env.CE_SCALE_OUT) {
    console.log(
      'The scale-out tests (test/scale-out/: Litestream, rooms behind nginx) are skipped: npm run test:scale-out runs them.',
    );
  }
  const logs = mkdtempSync(path.join(tmpdir(), 'ce-suite-logs-'));
  process.env.CE_TEST_LOGS = logs;
  return () => scanSuiteLogs(logs);
}

/**
 * Every room the suite served logged at info (test/helpers/suite-logs.ts):
 * not one line may hold a token. Fails the run when one does.
 */
function scanSuiteLogs(dir: string): void {
  let lines = 0;
  let requests = 0;
  const leaks: string[] = [];
  for (const name of readdirSync(dir)) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (line === '') continue;
      lines += 1;
      if (line.includes('"msg":"request"')) requests += 1;
      if (MINTED_TOKEN.test(line)) leaks.push(line);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  if (leaks.length > 0) {
    // Thrown from a teardown, an error would be printed and the run still pass: it is failed here.
    console.error(`FAIL: ${leaks.length} log lines of the suite's rooms hold a token; the first:\n${leaks[0]}`);
    process.exitCode = 1;
    return;
  }
  console.log(`the suite's room logs: ${lines} lines (${requests} requests), no token in any`);
}
