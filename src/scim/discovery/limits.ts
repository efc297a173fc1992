// TEMPORARY until scim-users' plumbing is merged: then these come from their modules.
export const MAX_PAYLOAD_BYTES = 800_000;
export const MAX_FILTER_RESULTS = 1000;
