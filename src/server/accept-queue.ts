import { readFileSync } from "node:fs";

/**
 * Whether Linux hands connections still queued on a closing SO_REUSEPORT listener to its
 * sibling (net.ipv4.tcp_migrate_req, Linux 5.14+). Without it, a TLS reload resets the few
 * connections the kernel queued on the old listener in its last instant. null: not Linux / unknown.
 */
export function acceptQueueMigration(): boolean | null {
  try {
    return readFileSync("/proc/sys/net/ipv4/tcp_migrate_req", "utf8").trim() !== "0";
  } catch {
    return null;
  }
}
