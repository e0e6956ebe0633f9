/** Loads the home-board pointers a caller's home board is chosen from (NAV-1): its own, its groups', the server's. */
import type { Db } from '../../db/database';
import { independentReads } from '../../db/independentReads';
import type { Principal } from '../../identity/principal';
import { readServerBoardSettings } from '../../settings/serverSettings';
import type { HomeCandidates } from './resolve';
import { Group, User } from '../../db/models';

type HomePointers = { homeBoardId: string | null; mobileHomeBoardId: string | null };

export async function loadHomeCandidates(db: Db, principal: Principal | null): Promise<HomeCandidates> {
  const [user, groups, server] = await independentReads(db, [
    async () => (principal ? await User.query(db).findById(principal.userId).select('homeBoardId', 'mobileHomeBoardId').castTo<HomePointers | undefined>() : undefined),
    async () =>
      principal && principal.groupIds.length > 0
        ? await Group.query(db).whereIn('id', principal.groupIds).select('homeBoardId', 'mobileHomeBoardId', 'position').castTo<(HomePointers & { position: number })[]>()
        : [],
    () => readServerBoardSettings(db),
  ] as const);
  return {
    user: user ? { homeBoardId: user.homeBoardId ?? null, mobileHomeBoardId: user.mobileHomeBoardId ?? null } : null,
    groups: groups.map((g) => ({
      homeBoardId: g.homeBoardId ?? null,
      mobileHomeBoardId: g.mobileHomeBoardId ?? null,
      position: Number(g.position),
    })),
    server: { homeBoardId: server.homeBoardId, mobileHomeBoardId: server.mobileHomeBoardId },
  };
}
