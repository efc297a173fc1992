import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;
import { CodeParam, IdResult, ok } from "../shared/envelope";
import { ConfigurationCreate, ConfigurationGroupCreate, ConfigurationList } from "./model";
import { createConfiguration, createConfigurationGroup, listConfigurations } from "./service";

const detail = (summary: string) => ({ tags: ["Configurations"], summary });

export function configurationRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .get("/configuration/:code", ({ params }) => ok(listConfigurations(ctx.db, params.code)), {
      params: CodeParam, response: tmsResponses({ 200: ConfigurationList }, ERRS), detail: detail("List configuration groups with their configurations"),
    })
    .post("/configuration/:code/group", ({ params, body }) => ok(createConfigurationGroup(ctx.db, params.code, body.title)), {
      params: CodeParam, body: ConfigurationGroupCreate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Create a configuration group (title unique in the project; 409 otherwise)"),
    })
    .post("/configuration/:code", ({ params, body }) => ok(createConfiguration(ctx.db, params.code, body)), {
      params: CodeParam, body: ConfigurationCreate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Create a configuration in a group (title unique in the group; 409 otherwise)"),
    });
}
