/**
 * The cluster test's steady mixed load and its ledger: SCIM creates and patches, v1 case creates
 * and v2 results, sent through the load balancer by a few workers, each retried by the client
 * until acknowledged (2xx). The ledger keeps what was acknowledged, so the test can look for each
 * write in the database and for each event at the receiver afterwards; every attempt is logged
 * with its time and status, so a scenario can count what failed while it ran.
 */
import postgres from "postgres";
import { Webhook } from "standardwebhooks";

export type OpKind = "scim.create" | "scim.patch" | "case.create" | "result.v2";
/** An attempt's status: the HTTP status, or what happened instead of an answer. */
export type AttemptStatus = number | "network" | "timeout";
export type Attempt = { at: number; ms: number; op: OpKind; status: AttemptStatus };

export type LoadTarget = {
  /** Where requests go: the load balancer. */
  url: string;
  scimToken: string;
  apiToken: string;
  project: string;
  /** The run (its number in the project) v2 results go to, and a case (number) they link to. */
  run: number;
  resultCase: number;
};

/** A client's patience for one attempt: above the load balancer's server timeout, so a hang is the balancer's 504 first. */
const ATTEMPT_TIMEOUT_MS = 35_000;
/** How long a client keeps retrying one write before giving up on it (it is then not acknowledged). */
const GIVE_UP_MS = 60_000;

export class MixedLoad {
  readonly attempts: Attempt[] = [];
  /** userName → SCIM id, answered 201. */
  readonly users = new Map<string, string>();
  /** userNames answered 409 after an attempt of ours got no answer: that attempt created the user. */
  readonly userConflicts = new Set<string>();
  /** SCIM id → displayName answered 200 (each user patched once, so the last write is known). */
  readonly patches = new Map<string, string>();
  /** title → case number, answered 200. */
  readonly cases = new Map<string, number>();
  /** v2 result ids answered 200 (stored or `duplicate: true`). */
  readonly results = new Set<string>();
  /** v2 result ids answered `duplicate: true`: an earlier attempt had stored it. */
  readonly resultReplays = new Set<string>();
  /** Writes refused with a 4xx the load never causes, and writes given up after GIVE_UP_MS. */
  readonly rejected: string[] = [];
  readonly abandoned: string[] = [];
  private readonly toPatch: string[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private seq = 0;
  readonly tag = Math.random().toString(36).slice(2, 8);

  constructor(private readonly target: LoadTarget, private readonly options: { workers: number; pauseMs: number } = { workers: 4, pauseMs: 20 }) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.workers = Array.from({ length: this.options.workers }, (_, w) => this.work(w));
  }

  /** Stops issuing new writes; resolves when every write in progress is acknowledged or given up. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async work(worker: number): Promise<void> {
    const kinds: OpKind[] = ["scim.create", "case.create", "result.v2", "scim.patch"];
    for (let i = worker; this.running; i++) {
      const kind = kinds[i % kinds.length]!;
      if (kind === "scim.patch" && this.toPatch.length === 0) continue;
      await this.op(kind);
      await Bun.sleep(this.options.pauseMs);
    }
  }

  private async op(kind: OpKind): Promise<void> {
    const n = `${this.tag}-${++this.seq}`;
    const t = this.target;
    const scim = { authorization: `Bearer ${t.scimToken}`, "content-type": "application/scim+json" };
    const api = { token: t.apiToken, "content-type": "application/json" };
    switch (kind) {
      case "scim.create": {
        const userName = `u-${n}@cluster.test`;
        const r = await this.send(kind, "POST", "/scim/v2/Users", scim, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, externalId: `ext-${n}`, name: { givenName: "Cluster", familyName: n }, active: true }, [409]);
        if (r?.status === 201) {
          const id = String(((await r.json()) as { id: string }).id);
          this.users.set(userName, id);
          this.toPatch.push(id);
        } else if (r?.status === 409) this.userConflicts.add(userName);
        return;
      }
      case "scim.patch": {
        const id = this.toPatch.shift()!;
        const displayName = `Patched ${n}`;
        const r = await this.send(kind, "PATCH", `/scim/v2/Users/${id}`, scim, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "displayName", value: displayName }] });
        if (r) this.patches.set(id, displayName);
        return;
      }
      case "case.create": {
        const title = `case ${n}`;
        const r = await this.send(kind, "POST", `/api/v1/case/${t.project}`, api, { title });
        if (r) this.cases.set(title, ((await r.json()) as { result: { id: number } }).result.id);
        return;
      }
      case "result.v2": {
        const id = `result-${n}`;
        const r = await this.send(kind, "POST", `/api/v2/${t.project}/run/${t.run}/result`, api, { id, title: "cluster result", testops_id: t.resultCase, execution: { status: "passed", duration: 5 } });
        if (r) {
          this.results.add(id);
          if (((await r.json()) as { result: { duplicate: boolean } }).result.duplicate) this.resultReplays.add(id);
        }
        return;
      }
    }
  }

  /**
   * One write, retried until a 2xx (or a status in `final`), or given up. A 5xx, no answer or a
   * timeout is retried after a short backoff; 429 too; any other 4xx is a bug of the test or the
   * product and recorded as rejected.
   */
  private async send(op: OpKind, method: string, path: string, headers: Record<string, string>, body: unknown, final: number[] = []): Promise<Response | null> {
    const started = Date.now();
    let backoff = 100;
    for (;;) {
      const at = Date.now();
      let status: AttemptStatus;
      let response: Response | null = null;
      try {
        response = await fetch(`${this.target.url}${path}`, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) });
        status = response.status;
      } catch (e) {
        status = (e as Error).name === "TimeoutError" ? "timeout" : "network";
      }
      this.attempts.push({ at, ms: Date.now() - at, op, status });
      if (response && (response.ok || final.includes(response.status))) return response;
      if (response && response.status >= 400 && response.status < 500 && response.status !== 429) {
        this.rejected.push(`${op} ${method} ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
        return null;
      }
      await response?.body?.cancel();
      if (Date.now() - started > GIVE_UP_MS) {
        this.abandoned.push(`${op} ${path}`);
        return null;
      }
      await Bun.sleep(backoff);
      backoff = Math.min(backoff * 2, 1000);
    }
  }

  /** Acknowledged writes so far, by kind (an acknowledged 409 conflict counts as a SCIM create). */
  acknowledged() {
    return { scimCreates: this.users.size + this.userConflicts.size, scimPatches: this.patches.size, caseCreates: this.cases.size, v2Results: this.results.size };
  }

  /** Attempts in [from, to) that got no 2xx (a 409 on a retried SCIM create excepted: it is the answer). */
  failedAttempts(from: number, to = Infinity): Attempt[] {
    return this.attempts.filter((a) => a.at >= from && a.at < to && !(typeof a.status === "number" && (a.status < 300 || (a.status === 409 && a.op === "scim.create"))));
  }
}

/** What the database holds of the acknowledged writes, and what is missing. */
export type Found = {
  found: { scimCreates: number; scimPatches: number; caseCreates: number; v2Results: number };
  missing: string[];
  /** Cases stored more than once under one title (a create retried after its first attempt had committed). */
  extraCases: number;
};

export async function findAcknowledged(load: MixedLoad, databaseUrl: string, projectCode: string): Promise<Found> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const missing: string[] = [];
    const users = new Map<string, { id: string; display: string | null }>();
    for (const r of await sql<{ id: string; user_name: string; display_name_given: string | null }[]>`SELECT id::text AS id, user_name, display_name_given FROM users WHERE user_name LIKE ${`u-${load.tag}-%`}`)
      users.set(r.user_name, { id: r.id, display: r.display_name_given });
    let scimCreates = 0;
    for (const [userName, id] of load.users) {
      if (users.get(userName)?.id === id) scimCreates++;
      else missing.push(`SCIM user ${userName} (id ${id})`);
    }
    for (const userName of load.userConflicts) {
      if (users.has(userName)) scimCreates++;
      else missing.push(`SCIM user ${userName} (answered 409)`);
    }
    const byId = new Map([...users.values()].map((u) => [u.id, u.display]));
    let scimPatches = 0;
    for (const [id, display] of load.patches) {
      if (byId.get(id) === display) scimPatches++;
      else missing.push(`SCIM patch of user ${id} to "${display}" (database has ${JSON.stringify(byId.get(id))})`);
    }
    const cases = await sql<{ number: number; title: string }[]>`SELECT c.number, c.title FROM tms_cases c JOIN tms_projects p ON p.id = c.project_id WHERE p.code = ${projectCode} AND c.title LIKE ${`case ${load.tag}-%`}`;
    const stored = new Set(cases.map((c) => `${c.number} ${c.title}`));
    let caseCreates = 0;
    for (const [title, number] of load.cases) {
      if (stored.has(`${number} ${title}`)) caseCreates++;
      else missing.push(`case ${number} "${title}"`);
    }
    const results = new Set((await sql<{ client_id: string }[]>`SELECT client_id FROM tms_results WHERE client_id LIKE ${`result-${load.tag}-%`}`).map((r) => r.client_id));
    let v2Results = 0;
    for (const id of load.results) {
      if (results.has(id)) v2Results++;
      else missing.push(`v2 result ${id}`);
    }
    return { found: { scimCreates, scimPatches, caseCreates, v2Results }, missing, extraCases: cases.length - new Set(cases.map((c) => c.title)).size };
  } finally {
    await sql.end();
  }
}

/** A webhook subscriber on 127.0.0.1 that checks every signature and counts each `webhook-id`. */
export function startWebhookReceiver() {
  let verifier: Webhook | null = null;
  const deliveries: { webhookId: string; event: string; caseId: number | null; at: number }[] = [];
  const badSignatures: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      try {
        verifier?.verify(body, headers);
      } catch (e) {
        badSignatures.push(`${headers["webhook-id"]}: ${(e as Error).message}`);
        return new Response("bad signature", { status: 400 });
      }
      const event = JSON.parse(body) as { event: string; payload: { id?: number } };
      deliveries.push({ webhookId: headers["webhook-id"] ?? "", event: event.event, caseId: event.event === "case.created" ? (event.payload.id ?? null) : null, at: Date.now() });
      return new Response("ok");
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    deliveries,
    badSignatures,
    useSecret(secret: string) {
      verifier = new Webhook(secret);
    },
    /** Deliveries whose webhook-id arrived before (at least once means some may). */
    duplicates(from = 0, to = Infinity): number {
      const seen = new Set<string>();
      let dup = 0;
      for (const d of deliveries) {
        if (d.at >= from && d.at < to && seen.has(d.webhookId)) dup++;
        seen.add(d.webhookId);
      }
      return dup;
    },
    caseIds: () => new Set(deliveries.filter((d) => d.caseId !== null).map((d) => d.caseId!)),
    stop: () => server.stop(true),
  };
}
export type WebhookReceiver = ReturnType<typeof startWebhookReceiver>;
