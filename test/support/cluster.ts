/**
 * The pieces of a Gatehouse cluster, as real processes on 127.0.0.1 for the cluster test
 * (test/cluster/): a PostgreSQL primary with a synchronous streaming standby, Gatehouse nodes from
 * the compiled binary on one multi-host URL, and Debian's HAProxy in front checking /readyz.
 * Everything binds a free port, lives in its own temp dir and is undone by `cleanUpCluster()`.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startBinary, type RunningBinary } from "../e2e/binary";
import { postgresBinDir } from "./postgres";

/**
 * How to undo everything this module started or made (PostgreSQL servers, node processes, HAProxy,
 * temp dirs), each synchronous. `bun test` runs no process "exit" handler, so the cluster test
 * calls `cleanUpCluster()` from its afterAll, which runs whether its tests passed or not; a plain
 * `bun` script (the benchmark) gets it at exit as well.
 */
const undo = new Set<() => void>();
const onCleanUp = (fn: () => void) => {
  undo.add(fn);
  return () => undo.delete(fn);
};

/** Stops every process and removes every directory this module made, newest first; each step whatever the others did. */
export function cleanUpCluster(): void {
  for (const fn of [...undo].reverse()) {
    undo.delete(fn);
    try {
      fn();
    } catch {
      /* gone already; the next step still runs */
    }
  }
}
process.once("exit", cleanUpCluster);

export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

// PostgreSQL refuses to run as root: its commands run as `nobody` then (as test/support/postgres.ts does).
const asServerUser = process.getuid?.() === 0 ? ["runuser", "-u", "nobody", "--"] : [];

function pgCommand(name: string, args: string[], what = name): string {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (Debian: apt-get install postgresql)");
  const cmd = [...asServerUser, join(bin, name), ...args];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** One PostgreSQL server of the pair: its port, its data directory and its log. */
export type PostgresInstance = { name: string; port: number; dir: string; data: string; log(): string; running: boolean };

function instance(name: string): PostgresInstance {
  const dir = mkdtempSync(join(tmpdir(), `gatehouse-cluster-${name}-`));
  chmodSync(dir, 0o777);
  const logFile = join(dir, "log");
  return {
    name,
    port: freePort(),
    dir,
    data: join(dir, "data"),
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
    running: false,
  };
}

function startInstance(pg: PostgresInstance): void {
  // Durability is under test here: fsync and full-page writes stay on (the defaults).
  const options = [`-p ${pg.port}`, `-k ${pg.dir}`, "-c listen_addresses=127.0.0.1", "-c max_connections=100", "-c wal_level=replica", "-c max_wal_senders=5"].join(" ");
  pgCommand("pg_ctl", ["-D", pg.data, "-l", join(pg.dir, "log"), "-w", "-t", "60", "-o", options, "start"], `pg_ctl start (${pg.name})`);
  pg.running = true;
}

function stopInstance(pg: PostgresInstance, mode: "immediate" | "fast"): void {
  if (!pg.running) return;
  pg.running = false;
  pgCommand("pg_ctl", ["-D", pg.data, "-m", mode, "-w", "stop"], `pg_ctl stop (${pg.name})`);
}

export const CLUSTER_DATABASE = "gatehouse";

/**
 * A primary and a synchronous streaming standby (pg_basebackup -R), both on 127.0.0.1. The primary
 * waits for the standby's flush on every commit (`synchronous_standby_names = '*'`,
 * `synchronous_commit = on`), so a commit the primary acknowledged is on the standby's disk too.
 */
export type ReplicatedPostgres = {
  primary: PostgresInstance;
  standby: PostgresInstance;
  /** The nodes' URL: both hosts, primary first, `target_session_attrs=read-write`. */
  nodeUrl: string;
  /** A URL of the server that is the primary now (for the test's own checks). */
  primaryUrl(): string;
  /** `pg_ctl stop -m immediate` of the primary: no shutdown checkpoint, sessions cut (a crash for the clients). */
  crashPrimary(): void;
  /** `pg_ctl promote` of the standby; resolves once it accepts writes. */
  promoteStandby(): Promise<void>;
  stop(): void;
};

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const primary = instance("primary");
  const standby = instance("standby");
  let primaryNow = primary;
  const urlOf = (pg: PostgresInstance, database = CLUSTER_DATABASE) => `postgres://gatehouse@127.0.0.1:${pg.port}/${database}`;
  const stop = () => {
    for (const pg of [primary, standby]) {
      try {
        stopInstance(pg, "immediate");
      } catch {
        /* already gone */
      }
      rmSync(pg.dir, { recursive: true, force: true });
    }
  };
  onCleanUp(stop);
  try {
    // initdb's pg_hba.conf trusts local and 127.0.0.1 connections, replication ones included.
    pgCommand("initdb", ["-D", primary.data, "-A", "trust", "-U", "gatehouse", "-E", "UTF8", "--locale=C.UTF-8"], "initdb");
    startInstance(primary);
    const admin = postgres(urlOf(primary, "postgres"), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE ${CLUSTER_DATABASE} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'`);
      pgCommand("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "gatehouse", "-D", standby.data, "-R", "-X", "stream", "--checkpoint=fast"], "pg_basebackup");
      startInstance(standby);
      // Made synchronous only now that the standby streams (and on the primary alone: the standby's
      // copy of the configuration must not wait for a standby of its own once promoted).
      await admin.unsafe("ALTER SYSTEM SET synchronous_standby_names = '*'");
      await admin.unsafe("ALTER SYSTEM SET synchronous_commit = 'on'");
      await admin.unsafe("SELECT pg_reload_conf()");
      const deadline = Date.now() + 30_000;
      for (;;) {
        const rows = await admin<{ state: string; sync_state: string }[]>`SELECT state, sync_state FROM pg_stat_replication`;
        if (rows.some((r) => r.state === "streaming" && r.sync_state === "sync")) break;
        if (Date.now() > deadline) throw new Error(`the standby never became a synchronous streaming standby: ${JSON.stringify(rows)}\n${standby.log()}`);
        await Bun.sleep(100);
      }
    } finally {
      await admin.end();
    }
  } catch (e) {
    stop();
    throw e;
  }
  return {
    primary,
    standby,
    nodeUrl: `postgres://gatehouse@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${CLUSTER_DATABASE}?target_session_attrs=read-write&connect_timeout=2`,
    primaryUrl: () => urlOf(primaryNow),
    crashPrimary: () => stopInstance(primary, "immediate"),
    async promoteStandby() {
      pgCommand("pg_ctl", ["-D", standby.data, "-w", "-t", "60", "promote"], "pg_ctl promote");
      primaryNow = standby;
      const sql = postgres(urlOf(standby), { max: 1, onnotice: () => {} });
      try {
        const deadline = Date.now() + 30_000;
        while ((await sql<{ r: boolean }[]>`SELECT pg_is_in_recovery() AS r`)[0]!.r) {
          if (Date.now() > deadline) throw new Error("the promoted standby stayed in recovery");
          await Bun.sleep(50);
        }
      } finally {
        await sql.end();
      }
    },
    stop,
  };
}

/** Settings every node of the test cluster shares (the admin token, the secret key file, the URL…). */
export type NodeSettings = Record<string, string>;

/** One Gatehouse node: a fixed port (HAProxy's configuration names it) and a data directory of its own, kept across restarts. */
export type ClusterNode = {
  name: string;
  port: number;
  dataDir: string;
  process: RunningBinary | null;
  url: string;
  /** Everything its processes wrote, the earlier ones (before a restart) included. */
  logs(): string;
};

const started = new WeakMap<ClusterNode, string[]>();

export function clusterNode(name: string): ClusterNode {
  const dataDir = mkdtempSync(join(tmpdir(), `gatehouse-cluster-${name}-`));
  const port = freePort();
  const node: ClusterNode = { name, port, dataDir, process: null, url: `http://127.0.0.1:${port}`, logs: () => earlier.join("") + (node.process?.logs() ?? "") };
  onCleanUp(() => {
    // Its running process (if any) and that process's own temp dir, then its data dir.
    if (node.process) {
      if (node.process.proc.exitCode === null && node.process.proc.signalCode === null) node.process.kill9();
      rmSync(node.process.dir, { recursive: true, force: true });
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  const earlier: string[] = [];
  started.set(node, earlier);
  return node;
}

/** Starts the node's compiled binary and waits for its /readyz 200. */
export async function startNode(node: ClusterNode, settings: NodeSettings, timeoutMs = 60_000): Promise<RunningBinary> {
  if (node.process) {
    started.get(node)!.push(node.process.logs());
    // The previous process (stopped, or killed by a scenario): gone, and its temp dir with it.
    await node.process.stop("SIGKILL");
  }
  node.process = null;
  node.process = await startBinary({ env: { ...settings, GATEHOUSE_PORT: String(node.port), GATEHOUSE_DATA_DIR: node.dataDir }, timeoutMs });
  return node.process;
}

/**
 * The env file every node of a test cluster shares: the multi-host URL, one admin token and one
 * secret key, request logs, 409 for SCIM duplicates, rate limits out of a load's way, webhooks to
 * the local receiver; `extra` adds or overrides keys.
 */
export function clusterSettings(databaseUrl: string, adminToken: string, extra: NodeSettings = {}): NodeSettings {
  return {
    GATEHOUSE_DATABASE_URL: databaseUrl,
    GATEHOUSE_ADMIN_TOKEN: adminToken,
    GATEHOUSE_SECRET_KEY_FILE: sharedSecretKeyFile(),
    GATEHOUSE_LOG_LEVEL: "info",
    GATEHOUSE_SCIM_DUPLICATE_STATUS: "409",
    GATEHOUSE_SCIM_RATE_LIMIT: "10000",
    GATEHOUSE_SCIM_RATE_BURST: "10000",
    GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    ...extra,
  };
}

/** A key file the nodes share: each must unseal the webhook secrets any other sealed. */
export function sharedSecretKeyFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-cluster-key-"));
  onCleanUp(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "secret.key");
  writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600 });
  return file;
}

/** HAProxy in front of the nodes, health-checking /readyz; `states()` reads its stats page. */
export type Haproxy = { url: string; config: string; states(): Promise<Record<string, string>>; waitFor(server: string, state: "UP" | "DOWN", timeoutMs?: number): Promise<void>; logs(): string; stop(): Promise<void> };

/**
 * The load balancer's settings the cluster documentation recommends (docs/cluster.md): /readyz
 * checked every 500 ms, a node out after 2 failed checks and back after 2 good ones; a request
 * that could not reach a node, got no answer at all, or a 503 (draining, no primary) goes to
 * another node, up to 3 times.
 */
export function haproxyConfig(frontPort: number, statsPort: number, nodes: { name: string; port: number }[]): string {
  return `global
  maxconn 4096

defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 30s
  timeout queue 10s
  timeout http-keep-alive 10s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response 503
  option httpchk
  http-check send meth GET uri /readyz
  http-check expect status 200
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2

frontend gatehouse
  bind 127.0.0.1:${frontPort}
  default_backend nodes

backend nodes
  balance roundrobin
${nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} check`).join("\n")}

frontend stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
`;
}

export async function startHaproxy(nodes: { name: string; port: number }[]): Promise<Haproxy> {
  const haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].find(existsSync) ?? Bun.which("haproxy");
  if (!haproxy) throw new Error("HAProxy is not installed (Debian: apt-get install haproxy)");
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-cluster-haproxy-"));
  const removeDir = onCleanUp(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(dir, { recursive: true });
  const frontPort = freePort();
  const statsPort = freePort();
  const config = haproxyConfig(frontPort, statsPort, nodes);
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  const proc = Bun.spawn([haproxy, "-db", "-f", file], { stdout: "pipe", stderr: "pipe" });
  let output = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) output += new TextDecoder().decode(chunk);
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  const unkill = onCleanUp(() => proc.kill("SIGKILL"));
  const statsUrl = `http://127.0.0.1:${statsPort}/stats;csv`;
  const states = async (): Promise<Record<string, string>> => {
    const csv = await (await fetch(statsUrl)).text();
    const out: Record<string, string> = Object.create(null);
    for (const line of csv.split("\n")) {
      const f = line.split(",");
      if (f[0] === "nodes" && f[1] !== "BACKEND" && f[1] !== "FRONTEND" && f[1]) out[f[1]] = f[17] ?? "";
    }
    return out;
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await states();
      break;
    } catch {
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new Error(`haproxy did not start (exit ${proc.exitCode}):\n${output}`);
      }
      await Bun.sleep(50);
    }
  }
  return {
    url: `http://127.0.0.1:${frontPort}`,
    config,
    states,
    async waitFor(server, state, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const now = (await states())[server] ?? "";
        if (now === state || now.startsWith(`${state} `)) return;
        if (Date.now() > until) throw new Error(`haproxy: ${server} is "${now}", not ${state} after ${timeoutMs} ms`);
        await Bun.sleep(50);
      }
    },
    logs: () => output,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      unkill();
      rmSync(dir, { recursive: true, force: true });
      removeDir();
    },
  };
}
