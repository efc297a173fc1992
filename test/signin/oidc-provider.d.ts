// oidc-provider ships no types; these are the parts the tests' OP uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  export type Interaction = { uid: string; prompt: { name: string }; params: Record<string, unknown> };
  export class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
    static find(id: string): Promise<Grant | undefined>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: unknown, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: typeof Grant;
  }
}
