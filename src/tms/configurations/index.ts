import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;
import { CodeParam, IdResult, ok } from "../shared/envelope";
import { ConfigurationCreate, ConfigurationGroupCreate, ConfigurationList } from "./model";
import { createConfiguration, createConfigurationGroup, listConfigurations } from "./service";

const detail = (summary: string) => ({ tags: ["Configurations"], summary });

export function configurationRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .get("/configuration/:code", async ({ project }) => ok(await listConfigurations(ctx.db, project)), {
      params: CodeParam, response: tmsResponses({ 200: ConfigurationList }, ERRS), detail: detail("List configuration groups with their configurations"),
    })
    .post("/configuration/:code/group", async ({ project, body }) => ok(await createConfigurationGroup(ctx.db, project, body.title)), {
      params: CodeParam, body: ConfigurationGroupCreate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Create a configuration group (title unique in the project; 409 otherwise)"),
    })
    .post("/configuration/:code", async ({ project, body }) => ok(await createConfiguration(ctx.db, project, body)), {
      params: CodeParam, body: ConfigurationCreate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Create a configuration in a group (title unique in the group; 409 otherwise)"),
    });
}
