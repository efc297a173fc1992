/**
 * A POST/PUT body read into the directory's user state: the column attributes through the column
 * map (src/directory/user-columns.ts), `emails`, and the rest into the profile (profile.ts). Pure.
 * The rules on the state itself live in src/directory/users.ts (`validateUser`), which the
 * service runs once before every write, so a rule cannot be bypassed by choosing another verb.
 */
import { USER_COLUMN_MAP } from "../../directory/user-columns";
import type { UserState } from "../../directory/users";
import { ScimError } from "../errors";
import type { UserBody } from "./model";
import { getKey, profileFromBody } from "./profile";
import { columnValue, toBoolean, toText } from "./values";

const invalid = (detail: string) => new ScimError(400, detail, "invalidValue");

/** Reads a POST/PUT body (already type-checked by the model) into a state, not yet validated. */
export function stateFromBody(body: UserBody, opts: { requireNames: boolean; activeWhenOmitted: boolean }): UserState {
  const name = (body.name ?? {}) as Record<string, unknown>;
  const state: Record<string, unknown> = {};
  for (const c of USER_COLUMN_MAP) {
    const dot = c.attribute.indexOf(".");
    const raw = dot < 0 ? body[c.attribute] : getKey(name, c.attribute.slice(dot + 1));
    if (c.field === "userName") state.userName = raw; // required by the model; the directory trims and checks it
    else if (c.kind === "boolean" && (raw === undefined || raw === null)) state[c.field] = opts.activeWhenOmitted;
    else state[c.field] = columnValue(c, raw);
  }
  state.emails = ((body.emails ?? []) as Record<string, unknown>[]).map((e) => {
    const display = toText(e.display, "emails.display");
    return {
      value: typeof e.value === "string" ? e.value : "",
      type: toText(e.type, "emails.type"),
      primary: e.primary === undefined || e.primary === null ? false : toBoolean(e.primary, "emails.primary"),
      ...(display !== null ? { display } : {}),
    };
  });
  state.profile = profileFromBody(body);
  if (opts.requireNames)
    for (const c of USER_COLUMN_MAP) if ("requiredOnCreate" in c && !state[c.field]) throw invalid(`${c.attribute} is required`);
  return state as UserState;
}
