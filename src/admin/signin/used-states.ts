import { lt } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { writeTransaction } from "../../db/transaction";
import { hashToken } from "../../lib/tokens";
import { adminSignInUsedStates } from "./tables";

/**
 * Takes a sign-in's state for its one callback: true the first time on any node, false for a
 * replay (the primary key holds under concurrent callbacks: the second insert does nothing).
 * The row lives until the sign-in would have expired, when the cookie's expiry refuses it anyway;
 * expired rows are swept by the next callback.
 */
export async function takeSignInState(db: Db, state: string, expires: number, now = Date.now()): Promise<boolean> {
  return writeTransaction(db, async (tx) => {
    await tx.delete(adminSignInUsedStates).where(lt(adminSignInUsedStates.expiresAt, now));
    const taken = await tx.insert(adminSignInUsedStates).values({ stateHash: hashToken(state), expiresAt: expires }).onConflictDoNothing().returning({ stateHash: adminSignInUsedStates.stateHash });
    return taken.length === 1;
  });
}
