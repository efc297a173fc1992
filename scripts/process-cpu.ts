/** What benchmarks read of a process from Linux's /proc. */
import { readFileSync } from "node:fs";

/** CPU seconds (user + system) process `pid` has used so far, or null once it has exited. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return null;
  }
}
