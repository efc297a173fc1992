import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { adminAccess } from "./access";
import { adminResponses } from "./auth";

const Me = t.Object({
  kind: t.Union([t.Literal("person"), t.Literal("env-token"), t.Literal("admin-token")]),
  name: t.String({ description: "The person (e-mail or name) or the token name the audit log shows" }),
  role: t.Union([t.Literal("viewer"), t.Literal("operator"), t.Literal("owner")]),
  csrfToken: t.Optional(t.String({ description: "A person's session only: send it as `x-csrf-token` with every change" })),
});

/** GET /api/admin/me: who the credential is and its role (the console shows only what the role may do). */
export function meAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-me" })
    .use(adminAccess(ctx))
    .get("/me", ({ admin }) => ({ kind: admin.kind, name: admin.name, role: admin.role, ...(admin.csrfToken ? { csrfToken: admin.csrfToken } : {}) }), {
      role: "viewer",
      response: adminResponses({ 200: Me }),
      detail: { tags: ["Admin: access"], summary: "Who is calling and with which role" },
    });
}
