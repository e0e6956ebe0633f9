/**
 * DB-4: a large set dry run on the embedded database does not hold the event loop: liveness probes, sent one after
 * another while it runs, are answered before it ends. Counted, never timed (the machine may be slow): before DB-4 a
 * dry run of this size answered at most the probes sent before its work began.
 */
import { useTestServer } from '../support/server';
import { createActor } from '../support/actors';
import { clockBoardFile } from '../support/boardFiles';
import { unique } from '../support/unique';

const server = useTestServer();

describe('liveness during a large set dry run (DB-4)', () => {
  it('DB-4: liveness probes sent one after another are answered while a 200-board dry run from a board-create user runs', async () => {
    const creator = await createActor(server, { permissions: ['board-create'] });
    const set = { managedBy: unique('live-'), boards: Array.from({ length: 200 }, () => clockBoardFile(unique('live-'), 5)) };
    let done = false;
    const dryRun = server.call('POST', '/api/boards/apply?dryRun=true', { key: creator.key, body: set }).finally(() => (done = true));
    let answeredWhileRunning = 0;
    while (!done) {
      const live = await server.call('GET', '/api/health/live');
      expect(live.status).toBe(200);
      if (!done) answeredWhileRunning++;
    }
    const plan = await dryRun;
    expect(plan.status).toBe(200);
    expect(plan.body.summary).toMatchObject({ create: 200, changed: true });
    expect(answeredWhileRunning).toBeGreaterThanOrEqual(20);
  }, 600_000);
});
