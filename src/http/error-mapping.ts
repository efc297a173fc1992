import { isLockBusy } from "../db/lock-wait";
import { isStorageFull } from "../ops/storage";
import { clipMessage, quoteValue } from "./body";
import { ApiError, apiErrorResponse } from "./errors";
import { DirectoryError } from "../directory/errors";
import { ScimError, scimErrorResponse } from "../scim/errors";
import type { Logger } from "../log";
import { DurabilityError } from "../db/group-commit";

/**
 * The one place where a thrown error becomes an HTTP answer. The protocol is chosen by path:
 * under /scim/ the SCIM Error body, everywhere else the JSON API error body. 5xx details are
 * logged (with the request id) and never sent to the client.
 */
export function mapError(args: { code: string | number; error: unknown; request: Request; requestId?: string; log: Logger }): Response {
  const { code, request, log } = args;
  // A hook that reads the body (auth, byte limit, JSON) throws a protocol error; Elysia wraps
  // whatever a parser throws in its generic PARSE error, so unwrap it here.
  const cause = code === "PARSE" ? (args.error as Error | undefined)?.cause : undefined;
  const error = cause instanceof ScimError || cause instanceof ApiError ? cause : args.error;
  const path = new URL(request.url).pathname;
  const scim = path === "/scim" || path.startsWith("/scim/");

  if (error instanceof ScimError) return scimErrorResponse(error);
  if (error instanceof DirectoryError)
    return scim ? scimErrorResponse(new ScimError(error.status, error.message, error.scimType)) : apiErrorResponse(new ApiError(error.status, error.code, error.message));
  if (error instanceof ApiError) return scim ? scimErrorResponse(new ScimError(error.status, error.message, undefined, error.headers)) : apiErrorResponse(error);

  if (error instanceof DurabilityError) {
    // The commit happened but may not survive a power loss; the process stops (see `serve`).
    log.error("write not durable", { requestId: args.requestId, method: request.method, path, error: error.message });
    const message = "The change could not be written to disk; it may or may not have been applied. Retry later.";
    return scim ? scimErrorResponse(new ScimError(503, message)) : apiErrorResponse(new ApiError(503, "unavailable", message));
  }

  if (isStorageFull(error)) {
    log.error("write refused: the database or its disk is full", { requestId: args.requestId, method: request.method, path });
    const message = "The database or its disk is full: nothing was written. Free disk space (or ask the operator to), then retry.";
    return scim ? scimErrorResponse(new ScimError(507, message)) : apiErrorResponse(new ApiError(507, "insufficient_storage", message));
  }
  if (isLockBusy(error)) {
    const message = "The database is locked by another process (a backup or maintenance); retry shortly.";
    const headers = { "retry-after": "1" };
    return scim ? scimErrorResponse(new ScimError(503, message, undefined, headers)) : apiErrorResponse(new ApiError(503, "busy", message, undefined, headers));
  }

  let status = 500;
  let message = "Internal server error";
  let apiCode = "internal";
  let scimType: ConstructorParameters<typeof ScimError>[2];
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
  return scim ? scimErrorResponse(new ScimError(status, message, scimType)) : apiErrorResponse(new ApiError(status, apiCode, message, field));
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
