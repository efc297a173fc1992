/**
 * SCIM input read into the directory's user state: `active` as IdPs spell it, `userType`, optional
 * strings. Pure. The rules on the state itself live in src/directory/users.ts (`validateUser`),
 * where POST, PUT and PATCH all end, so a rule cannot be bypassed by choosing another verb.
 */
import { validateUser, type UserState } from "../../directory/users";
import { ScimError } from "../errors";
import type { UserBody } from "./model";
import { profileFromBody } from "./profile";
import { toBoolean, toText, toUserType } from "./values";

const invalid = (detail: string) => new ScimError(400, detail, "invalidValue");

/** Reads a POST/PUT body (already type-checked by the model) into a state. */
export function stateFromBody(body: UserBody, opts: { requireNames: boolean; activeWhenOmitted: boolean }): UserState {
  const name = (body.name ?? {}) as Record<string, unknown>;
  const emails = (body.emails ?? []) as Record<string, unknown>[];
  const state: UserState = {
    userName: body.userName,
    externalId: toText(body.externalId, "externalId"),
    givenName: toText(name.givenName, "name.givenName"),
    familyName: toText(name.familyName, "name.familyName"),
    formattedName: toText(name.formatted, "name.formatted"),
    displayNameGiven: toText(body.displayName, "displayName"),
    title: toText(body.title, "title"),
    userType: toUserType(body.userType),
    active: body.active === undefined || body.active === null ? opts.activeWhenOmitted : toBoolean(body.active, "active"),
    emails: emails.map((e) => {
      const display = toText(e.display, "emails.display");
      return {
        value: typeof e.value === "string" ? e.value : "",
        type: toText(e.type, "emails.type"),
        primary: e.primary === undefined || e.primary === null ? false : toBoolean(e.primary, "emails.primary"),
        ...(display !== null ? { display } : {}),
      };
    }),
    profile: profileFromBody(body),
  };
  if (opts.requireNames) {
    // Spec 4.1: POST requires name.familyName and name.givenName.
    if (!state.givenName) throw invalid("name.givenName is required");
    if (!state.familyName) throw invalid("name.familyName is required");
  }
  return validateUser(state);
}
