import { t } from "elysia";
import { Envelope, Limit, Offset } from "../shared/envelope";
import { QQL_MAX_LENGTH } from "./qql";

export const SearchQuery = t.Object({
  query: t.String({ minLength: 1, maxLength: QQL_MAX_LENGTH, description: 'QQL subset, e.g. entity = "case" and project = "DEMO" and severity in ("critical", "blocker") and title ~ "login" order by id desc' }),
  limit: Limit,
  offset: Offset,
});
export const SearchResult = Envelope(t.Object({
  total: t.Integer(), filtered: t.Integer(), count: t.Integer(),
  entities: t.Array(t.Object({ entity: t.String() }, { additionalProperties: true, description: "The entity's own view (as GET /case, /run, /result, /defect, /plan answer it)" })),
}));
