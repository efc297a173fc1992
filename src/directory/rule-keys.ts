/**
 * The `serializeOn` keys of the directory's rules (docs/storage.md, "Rules under concurrent
 * transactions"). A write names the keys of the rules it checks before writing; transactions
 * naming the same key run one after another (SQLite: the one writer anyway; PostgreSQL: an
 * advisory lock each), so a check sees every committed write it could race with.
 */

/**
 * Case-folded userNames are unique in the organization; every user create and update names it
 * (organization-wide: a rename's new name is known only inside the transaction). Deactivations and
 * departures from a workspace run under it too, which is what membership writes rely on.
 */
export const USER_NAMES_KEY = "directory:user-names";

/** Active regular users fit GATEHOUSE_LICENSE_SEATS: a count no constraint can hold. */
export const SEATS_KEY = "directory:seats";

/** Workspace names are unique. */
export const WORKSPACE_NAMES_KEY = "directory:workspace-names";

/** Group displayNames are unique per workspace, case-folded. */
export const groupNamesKey = (workspaceId: number) => `directory:group-names:${workspaceId}`;

/**
 * A write that adds users to a group keeps only users who are active and members of the group's
 * workspace, and a write that takes a user out of a workspace removes their memberships there: both
 * are ordered with every write that changes who is active or where (the user key), so an add never
 * lands for a user whom a concurrent, uncommitted deactivation is taking out of every group (READ
 * COMMITTED would let the add read the user as still active).
 */
export const MEMBERSHIP_WRITE_KEYS: readonly string[] = [USER_NAMES_KEY];
