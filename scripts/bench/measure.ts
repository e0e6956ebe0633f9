/** Small measuring helpers shared by scripts/bench/run.ts and scripts/bench/compare.ts. */
import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process has used so far, from /proc; null where there is no /proc. */
export function cpuSecondsOf(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** Sorted-order percentile of samples (NaN when there are none). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}
