import { isLockBusy, isStorageFull } from "../db/lock-wait";
import { isDatabaseUnavailable, unavailableReason } from "../db/availability";
import { clipMessage, quoteValue } from "./body";
import { AnsweringError, renderApiError, type ErrorAnswer, type ErrorRenderer } from "./errors";
import type { Logger } from "../log";
import { DurabilityError } from "../db/group-commit";

/**
 * The one place where a thrown error becomes an HTTP answer. The protocol is chosen by path:
 * under /scim/ the SCIM Error body (rendered by `renderScim`, which the SCIM feature provides),
 * everywhere else the JSON API error body. Errors that know their answer (`AnsweringError`: the
 * API's, SCIM's and the directory's) say it themselves; storage failures and Elysia's own errors
 * are answered here. 5xx details are logged (with the request id) and never sent to the client.
 */
export function mapError(args: { code: string | number; error: unknown; request: Request; requestId?: string; log: Logger; renderScim: ErrorRenderer }): Response {
  const { code, request, log } = args;
  // A hook that reads the body (auth, byte limit, JSON) throws a protocol error; Elysia wraps
  // whatever a parser throws in its generic PARSE error, so unwrap it here.
  const cause = code === "PARSE" ? (args.error as Error | undefined)?.cause : undefined;
  const error = cause instanceof AnsweringError ? cause : args.error;
  const path = new URL(request.url).pathname;
  const scim = path === "/scim" || path.startsWith("/scim/");
  const render = (answer: ErrorAnswer) => (scim || answer.scimOnly ? args.renderScim(answer) : renderApiError(answer));

  if (error instanceof AnsweringError) return render(error.answer());

  if (error instanceof DurabilityError) {
    // The commit happened but may not survive a power loss; the process stops (see `serve`).
    log.error("write not durable", { requestId: args.requestId, method: request.method, path, error: error.message });
    const message = "The change could not be written to disk; it may or may not have been applied. Retry later.";
    return render({ status: 503, code: "unavailable", message });
  }

  if (isStorageFull(error)) {
    log.error("write refused: the database or its disk is full", { requestId: args.requestId, method: request.method, path });
    const message = "The database or its disk is full: nothing was written. Free disk space (or ask the operator to), then retry.";
    return render({ status: 507, code: "insufficient_storage", message });
  }
  if (isLockBusy(error)) {
    const message = "The database is locked by another process (a backup or maintenance); retry shortly.";
    return render({ status: 503, code: "busy", message, headers: { "retry-after": "1" } });
  }

  if (isDatabaseUnavailable(error)) {
    // No primary for now (restart, failover, a broken connection): retry here or on another node.
    log.warn("database unavailable", { requestId: args.requestId, method: request.method, path, error: clipMessage(unavailableReason(error), 200) });
    const message = "The database cannot be reached right now (it may be restarting or failing over); if this was a write, it may or may not have been applied. Retry shortly.";
    return render({ status: 503, code: "unavailable", message, headers: { "retry-after": "1" } });
  }

  let status = 500;
  let message = "Internal server error";
  let apiCode = "internal";
  let scimType: ErrorAnswer["scimType"];
  let field: string | undefined;
  switch (code) {
    case "NOT_FOUND":
      status = 404; message = `No route for ${request.method} ${clipMessage(path, 200)}`; apiCode = "not_found";
      break;
    case "PARSE":
      status = 400; message = "The request body is not valid JSON"; apiCode = "invalid_json"; scimType = "invalidSyntax";
      break;
    case "VALIDATION": {
      // An answer that fails its own declared schema is our bug, not the client's.
      if ((error as { type?: string }).type === "response") {
        log.error("response does not match its schema", { requestId: args.requestId, method: request.method, path, error: String((error as Error)?.message ?? error) });
        break;
      }
      status = 400; apiCode = "invalid_request"; scimType = "invalidValue";
      const first = reported((error as { all?: SchemaError[] }).all?.[0]);
      field = first?.path ? first.path.replace(/^\//, "").replace(/\//g, ".") : undefined;
      const why = clipMessage(first?.summary ?? first?.message ?? "invalid", 200);
      message = field ? `Invalid value for ${quoteValue(field)}: ${why}` : `Invalid request: ${why}`;
      break;
    }
    default: {
      const explicit = (error as { status?: unknown })?.status;
      if (typeof explicit === "number" && explicit >= 400 && explicit < 500) {
        status = explicit; message = clipMessage((error as Error).message || "Bad request"); apiCode = "bad_request";
      } else {
        log.error("unhandled error", { requestId: args.requestId, method: request.method, path, error: String((error as Error)?.stack ?? error) });
      }
    }
  }
  return render({ status, code: apiCode, message, scimType, field });
}

type SchemaError = { path?: string; message?: string; summary?: string; schema?: { type?: unknown }; errors?: Iterable<SchemaError>[] };

/**
 * The schema error to report. An optional field is `X | null`: when the value is not null, the
 * union's own error ("should be one of: 'array', 'null'") hides where X failed, so the first error
 * of X is reported instead (repeatedly, for nested optional fields) — `steps.2.action`, not `steps`.
 */
function reported(e: SchemaError | undefined): SchemaError | undefined {
  if (!e?.errors || e.errors.length !== 2) return e;
  const variants = e.errors.map((it) => [...it]);
  const others = variants.filter((v) => !(v.length === 1 && v[0]!.schema?.type === "null"));
  if (others.length !== 1 || !others[0]![0]) return e;
  return reported(others[0]![0]);
}
