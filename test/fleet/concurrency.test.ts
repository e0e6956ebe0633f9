import { newId } from '../../src/db/ids';
import { expectOk } from '../boards-document/helpers';
import { clockBoardFile } from '../support/boardFiles';
import { eventually } from '../support/eventually';
import { useTestServer, type CallResult } from '../support/server';
import { unique } from '../support/unique';

/**
 * Set applies that run at the same time (FLEET-11, FLEET-12). Two instances, or a transaction held open by the test,
 * need PostgreSQL: PGlite serves one connection of one process, so nothing there runs concurrently.
 */
const server = useTestServer();
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;
const pgIt = onPostgres ? it : it.skip;

const applySet = (body: unknown, query = '') => server.call('POST', `/api/boards/apply${query}`, { body });
const boardByName = async (name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id', 'managedBy');

/** A file whose board-level field and item ids say which apply wrote it. */
const taggedFile = (name: string, tag: string, clocks: number) => ({ ...clockBoardFile(name, clocks), settings: { pageTitle: tag } });

/** Waits until one of this test file's database connections waits for a lock (the request under test is blocked). */
async function untilSomeoneWaitsForALock(): Promise<void> {
  await eventually(async () => {
    const { rows } = await server.db.raw(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = current_setting('application_name') AND wait_event_type = 'Lock'`,
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });
}

describe('concurrent set applies (FLEET-11)', () => {
  pgIt(
    'FLEET-11: overlapping pruning applies of one label from two instances, 20 rounds: no 5xx, every round leaves exactly one whole set',
    async () => {
      const sibling = await server.startSibling();
      const label = unique('race-');
      const [common1, common2, onlyA, onlyB] = [unique('c1-'), unique('c2-'), unique('a-'), unique('b-')];
      // The common boards exist before the race (a create both sets race for would be the name's 409, FLEET-12).
      expectOk(await applySet({ managedBy: label, boards: [taggedFile(common1, 'setup', 1), taggedFile(common2, 'setup', 1)] }));
      const statuses: number[] = [];
      for (let round = 0; round < 20; round++) {
        const sets = {
          a: { managedBy: label, boards: [taggedFile(common1, `a${round}`, 2), taggedFile(onlyA, `a${round}`, 2), taggedFile(common2, `a${round}`, 2)] },
          b: { managedBy: label, boards: [taggedFile(common2, `b${round}`, 3), taggedFile(common1, `b${round}`, 3), taggedFile(onlyB, `b${round}`, 3)] },
        };
        const answers: CallResult[] = await Promise.all([
          server.call('POST', '/api/boards/apply?prune=true', { body: sets.a }),
          sibling.call('POST', '/api/boards/apply?prune=true', { body: sets.b }),
        ]);
        for (const answer of answers) {
          statuses.push(answer.status);
          if (answer.status !== 200) {
            // What still fails names the board (or the set) and is a 409, never a 5xx.
            expect(answer.status).toBe(409);
            expect(answer.body.code).toBe('CONFLICT');
            expect(answer.body.message).toMatch(/^(Board|Set) /);
          }
        }
        // Nothing half-applied: the boards of the label are exactly one set's, each wholly as that set's file says.
        const boards: { id: string; name: string; pageTitle: string }[] = await server.db('boards').where({ managedBy: label }).select('id', 'name', 'pageTitle');
        const tags = new Set(boards.map((b) => b.pageTitle));
        expect(tags.size).toBe(1);
        const [tag] = [...tags];
        const winner = tag.startsWith('a') ? sets.a : sets.b;
        expect(tag.slice(1)).toBe(String(round));
        expect(boards.map((b) => b.name).sort()).toEqual(winner.boards.map((f) => f.name).sort());
        for (const board of boards) {
          const file = winner.boards.find((f) => f.name === board.name)!;
          const items: { id: string }[] = await server.db('items').where({ boardId: board.id }).select('id');
          expect(items.map((i) => i.id).sort()).toEqual(file.items.map((i) => i.id).sort());
        }
      }
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
    },
    600_000,
  );
});

describe('set apply errors name the board when another request got there first (FLEET-12)', () => {
  pgIt('FLEET-12: a board of the set created by a concurrent request is the 409 of the name, naming the board; nothing written', async () => {
    const label = unique('repo-');
    const [name, other] = [unique('made-'), unique('other-')];
    const holder = await server.db.transaction();
    try {
      await holder('boards').insert({ id: newId(), name, isPublic: false });
      const pending = applySet({ managedBy: label, boards: [clockBoardFile(other), clockBoardFile(name)] });
      await untilSomeoneWaitsForALock();
      await holder.commit();
      const answer = await pending;
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ message: `Board ${name}: Board with similar name already exists`, code: 'CONFLICT', data: { board: name } });
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    expect(await boardByName(other)).toBeUndefined();
    expect((await boardByName(name)).managedBy).toBeNull();
  });

  pgIt('FLEET-11, FLEET-12: a board of the set deleted by a concurrent request (a prune) is created again, not a 404', async () => {
    const label = unique('repo-');
    const name = unique('pruned-');
    expectOk(await applySet({ managedBy: label, boards: [clockBoardFile(name)] }));
    const before = await boardByName(name);
    const holder = await server.db.transaction();
    try {
      await holder('boards').where({ id: before.id }).delete();
      const pending = applySet({ managedBy: label, boards: [clockBoardFile(name, 3)] }, '?prune=true');
      await untilSomeoneWaitsForALock();
      await holder.commit();
      const plan = expectOk(await pending);
      expect(plan.boards.map((b: any) => [b.name, b.action])).toEqual([[name, 'create']]);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    const after = await boardByName(name);
    expect(after.id).not.toBe(before.id);
    expect(after.managedBy).toBe(label);
  });
});
