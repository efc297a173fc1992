import type { Db } from "../db/connection";
import { runMigrations, type DataStep } from "../db/migrate";
import { describeCollision, refoldUserKeys } from "../directory/refold";
import { repairStoredNames } from "../tms/shared/repair-stored-names";

/**
 * The data steps each feature adds to the schema migrations, in order: user keys folded in
 * JavaScript (src/directory/refold.ts), then rows stored unreadable through Object.prototype
 * names (src/tms/shared/repair-stored-names.ts). Listed here, above the features, so src/db knows
 * none of them.
 */
export const DATA_STEPS: readonly DataStep[] = [(sqlite) => refoldUserKeys(sqlite).map(describeCollision), repairStoredNames];

/** Brings the database to this binary's schema and runs the data steps: what `serve` and the CLI do. */
export function migrateDatabase(db: Db, report: (line: string) => void = () => {}, onApplied: (tags: string[]) => void = () => {}): number {
  return runMigrations(db, undefined, report, onApplied, DATA_STEPS);
}
