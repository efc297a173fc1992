/**
 * The `serializeOn` keys of the directory's rules (docs/storage.md, "Rules under concurrent
 * transactions"). A write names the keys of the rules it checks before writing; transactions
 * naming the same key run one after another (SQLite: the one writer anyway; PostgreSQL: an
 * advisory lock each), so a check sees every committed write it could race with.
 *
 * Case-folded userNames need no key: the unique index on `users.user_name_key` holds them (a
 * racing insert or rename waits for the other's COMMIT, then fails with a unique violation, which
 * the directory answers as the duplicate error its check gives). User creates therefore run side by
 * side and share WAL flushes; only the rules no constraint can hold have keys.
 */

/** Active regular users fit GATEHOUSE_LICENSE_SEATS: a count no constraint can hold. Only writes that can raise it name it. */
export const SEATS_KEY = "directory:seats";

/**
 * A user leaves a workspace or every group (deactivation, a workspace's de-provisioning): such
 * writes sweep the rows of groups the user was in, which a concurrent departure of another member
 * may sweep in another order; one departure at a time keeps their row locks from deadlocking.
 * Departures are rare (people leave); creates and other updates never name it.
 */
export const DEPARTURES_KEY = "directory:departures";

/** Workspace names are unique. */
export const WORKSPACE_NAMES_KEY = "directory:workspace-names";

/** Group displayNames are unique per workspace, case-folded. */
export const groupNamesKey = (workspaceId: number) => `directory:group-names:${workspaceId}`;

/**
 * Users' keys are spread over this many buckets (`userKey`): a write naming many users (a group
 * PATCH adding thousands) then takes at most this many advisory locks — PostgreSQL keeps them in
 * a shared table of `max_locks_per_transaction` × connections slots (64 × 100 by default), which
 * one lock per user would exhaust. Two users of one bucket only wait on each other's writes.
 */
const USER_KEY_BUCKETS = 64;

/**
 * Every write to user `userId` (an update reads the state and writes it back: two at once would
 * lose one), and every write that adds them to a group: ordered per user, so a group add never
 * lands for a user whom a concurrent, uncommitted deactivation is taking out of every group (READ
 * COMMITTED would let the add read the user as still active).
 */
export const userKey = (userId: number) => `directory:user:${userId % USER_KEY_BUCKETS}`;

/** The keys of a write that adds `userIds` to a group (`userKey` of each, once per bucket). */
export function membershipWriteKeys(userIds: Iterable<number>): string[] {
  return [...new Set([...userIds].map(userKey))];
}
