// Whether a process recorded earlier (a writer's lock, a runtime file) is
// still that process: its pid running, and started when it was. A pid is
// reused after a process dies, so the kernel's start time tells the one that
// wrote the record from a stranger that took its number.
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** The kernel's start time of the process (jiffies since boot); null where it cannot be read. */
  process_start: string | null;
}

/** Fields of /proc/<pid>/stat after the command name: [0] is the state, [19] the start time. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

export const processStart = (pid: number): string | null => procStat(pid)?.[19] ?? null;

export const thisProcess = (): ProcessIdentity => ({ pid: process.pid, process_start: processStart(process.pid) });

export const isThisProcess = (identity: ProcessIdentity): boolean => {
  const me = thisProcess();
  return identity.pid === me.pid && identity.process_start === me.process_start;
};

/** Whether the process is still running on this machine: its pid alive, not a zombie, and started when it was. */
export function stillRunning(identity: ProcessIdentity): boolean {
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(identity.pid);
  if (stat?.[0] === 'Z') return false; // exited, not yet reaped by its parent
  const start = stat?.[19] ?? null;
  return identity.process_start === null || start === null || start === identity.process_start;
}
