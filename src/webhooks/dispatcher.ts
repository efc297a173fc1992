import type { AppContext } from "../context";

/**
 * The in-process delivery loop, started by `serve` and stopped on shutdown.
 * PLACEHOLDER until the webhook engine (issue 5) lands: same signature, no effect yet.
 */
export function startDeliveryLoop(_ctx: AppContext): { stop(): Promise<void> } {
  return { stop: async () => {} };
}
