import type { AppContext } from "../../context";
import { mapError } from "../../http/error-mapping";
import { renderScimError } from "../errors";
import { silentLogger } from "../../log";
import { requestIdOf } from "../../http/request-info";
import { preparedQuery } from "../../db/statement";
import { activityRecorder, operationOf, type ActivityRecord } from "./service";

const tokenNameById = preparedQuery<{ name: string }, [number]>("SELECT name FROM scim_tokens WHERE id = ?1");
const userNameById = preparedQuery<{ name: string }, [number]>("SELECT user_name AS name FROM users WHERE id = ?1");
const groupNameById = preparedQuery<{ name: string }, [string]>("SELECT display_name AS name FROM groups WHERE id = ?1");

type Outcome = { status: number; scimType: string | null; detail: string | null };
type Noted = { tokenId: number; resourceName?: string | null };
/** What Elysia's after-response hook knows of a request: `error` and `code` when it failed. */
export type Answered = { request: Request; set: { status?: number | string }; responseValue?: unknown; body?: unknown; error?: unknown; code?: unknown };
/** The route option every SCIM route that can write carries: the provisioning log's after-response hook. */
export type ProvisioningLogHook = { afterResponse: (c: { request: Request; set: { status?: number | string }; responseValue?: unknown; body?: unknown }) => void };

const WRITE_PATH = /^\/scim\/v2\/(Users|Groups)(?:\/([^/]+))?\/?$/;

/** The answered resource as an object; a serialized one (groups answer JSON text) is parsed only for a create, whose id is not in the path. */
function resourceOf(value: unknown, created: boolean): Record<string, unknown> {
  if (value && typeof value === "object") return value as Record<string, unknown>;
  if (created && typeof value === "string" && value.startsWith("{")) {
    try {
      return JSON.parse(value) as Record<string, unknown>;
    } catch {
      /* not JSON after all */
    }
  }
  return {};
}

/**
 * Feeds the provisioning activity log from the SCIM plugin's hooks: `admitted` when the gate has
 * verified the token (writes by unknown tokens are not logged: an anonymous flood must not fill
 * the log), `afterResponse` once the answer is out. A rate-limited call (429) is not logged
 * either: the limit exists to make a flood cheap. Failures are rendered by the one error mapping,
 * so the log shows exactly the status, scimType and detail the IdP got.
 */
export function activityObserver(ctx: AppContext) {
  const recorder = activityRecorder(ctx);
  const noted = new WeakMap<Request, Noted>();
  const nameOf = async (type: string, id: string): Promise<string | null> => {
    if (type === "Group") return (await groupNameById.get(ctx.db, id))?.name ?? null;
    // A user id is an integer (users.id); any other path segment names nobody.
    return /^\d{1,15}$/.test(id) ? ((await userNameById.get(ctx.db, Number(id)))?.name ?? null) : null;
  };

  const target = (request: Request) => {
    if (!operationOf(request.method)) return null;
    const m = WRITE_PATH.exec(new URL(request.url).pathname);
    if (!m || m[2] === ".search") return null; // POST …/.search reads (RFC 7644 §3.4.3)
    return { type: m[1] === "Users" ? "User" : "Group", id: m[2] ? decodeURIComponent(m[2]) : null };
  };

  return {
    recorder,
    /** Whether the request is of a method the log records (a write): the gate calls `admitted` only then. */
    logs: (request: Request): boolean => operationOf(request.method) !== null,
    /** The gate verified this request's token. A group about to be deleted has its name read now. */
    async admitted(request: Request, tokenId: number): Promise<void> {
      const t = target(request);
      if (!t) return;
      noted.set(request, { tokenId, resourceName: request.method === "DELETE" && t.id && t.type === "Group" ? await nameOf(t.type, t.id) : undefined });
    },
    /** Whether `admitted` noted this request (a write by a verified token): only those are logged. */
    noted: (request: Request): boolean => noted.has(request),
    /** Queues the entry now, in answer order; it is built (a read or two) before the recorder writes it. */
    afterResponse(c: Answered): void {
      const n = noted.get(c.request);
      const t = n && target(c.request);
      if (!n || !t) return;
      const at = Date.now();
      recorder.record(
        entryOf(c, n, t, at).catch((e) => {
          // The answer is out already; a log that cannot be written must not become an unhandled error.
          ctx.log.error("provisioning activity log: entry not recorded", { requestId: requestIdOf(c.request), error: String((e as Error)?.message ?? e) });
          return null;
        }),
      );
    },
  };

  async function entryOf(c: Answered, n: Noted, t: { type: string; id: string | null }, at: number): Promise<ActivityRecord | null> {
    let outcome: Outcome;
    if (c.error !== undefined && c.error !== null) {
      const res = mapError({ code: (c.code as string) ?? "UNKNOWN", error: c.error, request: c.request, log: silentLogger, renderScim: renderScimError } /* the app's handler logged a 5xx already */);
      const body = (await res.json().catch(() => ({}))) as { scimType?: string; detail?: string };
      outcome = { status: res.status, scimType: body.scimType ?? null, detail: body.detail ?? null };
    } else {
      outcome = { status: Number(c.set.status ?? 200), scimType: null, detail: null };
    }
    if (outcome.status === 429) return null;
    const resource = resourceOf(c.responseValue, t.id === null);
    const sent = c.body && typeof c.body === "object" ? (c.body as Record<string, unknown>) : {};
    const key = t.type === "User" ? "userName" : "displayName";
    const id = t.id ?? (typeof resource.id === "string" ? resource.id : null);
    const pick = (o: Record<string, unknown>) => (typeof o[key] === "string" ? (o[key] as string) : null);
    let name = pick(resource) ?? pick(sent) ?? n.resourceName ?? null;
    if (name === null && id !== null) name = await nameOf(t.type, id);
    return {
      at,
      tokenId: n.tokenId,
      tokenName: (await tokenNameById.get(ctx.db, n.tokenId))?.name ?? `token ${n.tokenId}`,
      operation: operationOf(c.request.method)!,
      resourceType: t.type,
      resourceId: id,
      resourceName: name === null ? null : name.slice(0, 256),
      status: outcome.status,
      scimType: outcome.scimType,
      detail: outcome.detail === null ? null : outcome.detail.slice(0, 1000),
      requestId: requestIdOf(c.request),
    };
  }
}
