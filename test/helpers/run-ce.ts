// Runs the real `ce` binary (node bin/ce.js, no shell) and collects what it
// said. Each call is a node + tsx start: tests group their assertions so they
// spawn few.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const CE_BIN = fileURLToPath(new URL('../../bin/ce.js', import.meta.url));

export interface CeRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command line's words: split at spaces, a part in double quotes one word (`""` an empty one). */
export const words = (line: string): string[] => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

export function ce(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CeRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CE_BIN, ...args],
      {
        cwd: options.cwd,
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
        ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`ce ${args.join(' ')} did not run: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
    // Nothing to read: a command that reads stdin (ce bridge) sees it end.
    child.stdin?.end();
  });
}

/**
 * Runs `ce` from its sources inside this process (src/cli/main.ts), with
 * its own stdout, stderr and environment: what a spawned `ce` answers, for a
 * few milliseconds instead of a node start. The working directory is this
 * process's: a case that names its file relative to another runs `ce`.
 */
export async function ceHere(args: string[], options: { env?: Record<string, string> } = {}): Promise<CeRun> {
  const { main } = await import('../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await main([process.execPath, CE_BIN, ...args], {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    env: { ...process.env, ...options.env },
  });
  return { code, stdout, stderr };
}

/** Succeeded, said nothing on stderr, and printed one JSON document. */
export function okJson<T = unknown>(run: CeRun): T {
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as T;
}

/** Succeeded with plain output and nothing on stderr. */
export function okPlain(run: CeRun): string {
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  return run.stdout;
}

/** Failed with `code`, nothing on stdout, and one `ce: ...` line on stderr matching `message`. */
export function failedWith(run: CeRun, code: 1 | 2 | 3, message: RegExp): string {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: '' });
  expect(run.stderr).toMatch(/^ce: [^\n]+\n$/);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\bat .+:\d+:\d+/); // no stack trace
  return run.stderr;
}

/** Failed with exit code 1 and the --json error document on stderr. */
export function failedWithJson(run: CeRun, code: string, message: RegExp): { code: string; message: string } {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
  expect(run.stderr.trimEnd()).not.toContain('\n');
  const { error } = JSON.parse(run.stderr) as { error: { code: string; message: string } };
  expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
  return error;
}
