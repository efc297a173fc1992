import { AnsweringError, type ErrorAnswer } from "../http/errors";

/**
 * The directory's one error type. It names the failure in both protocols' words, so the one
 * error mapping (src/http/error-mapping.ts) renders it as a SCIM Error under /scim and as the
 * JSON API error elsewhere (the admin API and the test-management API use the directory too).
 */
export class DirectoryError extends AnsweringError {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    /** RFC 7644 §3.12 scimType, when one applies. */
    readonly scimType: "invalidValue" | "uniqueness" | "mutability" | undefined,
    /** The JSON API's error code. */
    readonly code: "invalid_request" | "conflict" | "not_found",
  ) {
    super(message);
  }

  answer(): ErrorAnswer {
    return { status: this.status, message: this.message, code: this.code, scimType: this.scimType };
  }
}

export const invalidUser = (detail: string) => new DirectoryError(400, detail, "invalidValue", "invalid_request");

/**
 * A non-unique userName or group displayName, honouring `GATEHOUSE_SCIM_DUPLICATE_STATUS`: 400
 * `invalidValue` as the spec says, or 409 `uniqueness` as RFC 7644 §3.3 and Okta expect.
 */
export function duplicate(duplicateStatus: 400 | 409, detail: string): DirectoryError {
  return duplicateStatus === 409 ? new DirectoryError(409, detail, "uniqueness", "conflict") : new DirectoryError(400, detail, "invalidValue", "invalid_request");
}

export const noFreeSeat = (detail: string) => new DirectoryError(409, detail, undefined, "conflict");

/** A write the caller may not make to this user (RFC 7644 §3.12 `mutability`); the detail names the rule. */
export const notYours = (detail: string) => new DirectoryError(400, detail, "mutability", "invalid_request");
