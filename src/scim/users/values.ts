/**
 * SCIM values read as IdPs send them: booleans as `true` or Entra's "True", optional text, the
 * seat type, and a column attribute of the column map by its kind. Pure; a leaf the body reader
 * (rules.ts), the profile normaliser (profile.ts) and PATCH (patch.ts) share.
 */
import type { UserColumn } from "../../directory/user-columns";
import { USER_TYPES, type UserType } from "../../directory/users";
import { ScimError } from "../errors";

const invalid = (detail: string) => new ScimError(400, detail, "invalidValue");

/** `active` as sent: true/false or Entra's "True"/"False". */
export function toBoolean(v: unknown, what: string): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  throw invalid(`${what} must be a boolean (true/false)`);
}

export function toUserType(v: unknown): UserType {
  if (v === undefined || v === null || v === "") return "regular"; // spec 2.1: default on create and update
  if (typeof v !== "string") throw invalid("userType must be a string: regular, read-only or billing");
  const t = v.trim().toLowerCase();
  if ((USER_TYPES as readonly string[]).includes(t)) return t as UserType;
  throw invalid(`userType ${JSON.stringify(v)} is not accepted; use regular, read-only or billing${t === "collaborator" ? " (a collaborator seat is sent as read-only)" : ""}`);
}

/** Optional text: null/empty → null; otherwise must be a string. */
export function toText(v: unknown, what: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalid(`${what} must be a string`);
  return v === "" ? null : v;
}

/**
 * A column attribute's value as sent (`raw` present, not null) read by its kind. `userName` is
 * required and stays as sent (the directory trims and checks it).
 */
export function columnValue(c: UserColumn, raw: unknown): string | boolean | null {
  switch (c.kind) {
    case "boolean":
      return toBoolean(raw, c.attribute);
    case "userType":
      return toUserType(raw);
    case "text":
      return toText(raw, c.attribute);
  }
}
