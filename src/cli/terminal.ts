// Where ce writes and what environment it reads: this process's stdout,
// stderr and env, unless ce runs inside another program (a test running
// many commands in one process), which gives each run its own.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Terminal {
  out(text: string): void;
  err(text: string): void;
  readonly env: NodeJS.ProcessEnv;
}

const PROCESS: Terminal = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  get env() {
    return process.env;
  },
};

const current = new AsyncLocalStorage<Terminal>();

/** The terminal of the command running now. */
export const terminal = (): Terminal => current.getStore() ?? PROCESS;

/** Runs `body` with `given` as its terminal. */
export const withTerminal = <T>(given: Terminal, body: () => Promise<T>): Promise<T> => current.run(given, body);
