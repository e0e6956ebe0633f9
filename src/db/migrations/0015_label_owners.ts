import type { Knex } from 'knex';

/**
 * FLEET-13: a `managedBy` label belongs to whoever first applied it: a user, or provisioning for the labels of its
 * sources. A label without a row has no owner: the next writer of a board under it claims it.
 *
 * The labels in use get the owner the records show: provisioning for the labels of its sources (its status and the
 * boards it recorded), else the user of the earliest set apply of the label in the audit log, else the user of the
 * earliest history entry a set apply of the label wrote (FLEET-8's origin). A label no record names (boards labelled by
 * a single-file import only, or records deleted by their retention) stays unowned, claimable by its next writer; an
 * admin may transfer or release any label (PUT and DELETE /api/boards/labels/{label}/owner).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('board_labels', (t) => {
    t.text('label').primary();
    t.text('owner_kind').notNullable();
    // A deleted user's labels are released (claimable again), as a release by an admin would.
    t.text('owner_user_id').nullable().references('id').inTable('users').onDelete('CASCADE');
    t.timestamp('claimed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['owner_user_id']);
  });
  await knex.raw(`ALTER TABLE board_labels ADD CONSTRAINT board_labels_owner_check
    CHECK ((owner_kind = 'provisioning' AND owner_user_id IS NULL) OR (owner_kind = 'user' AND owner_user_id IS NOT NULL))`);
  await knex.raw(`
    INSERT INTO board_labels (label, owner_kind, owner_user_id, claimed_at)
    SELECT DISTINCT ON (label) label, owner_kind, owner_user_id, claimed_at FROM (
      SELECT source AS label, 'provisioning' AS owner_kind, NULL::text AS owner_user_id, now() AS claimed_at, 0 AS rank FROM provisioning_sources
      UNION ALL
      SELECT source, 'provisioning', NULL, now(), 0 FROM provisioned_boards
      UNION ALL
      SELECT a.target_id,
             CASE WHEN a.action = 'provisioning.apply' THEN 'provisioning' ELSE 'user' END,
             CASE WHEN a.action = 'provisioning.apply' THEN NULL ELSE a.actor_user_id END,
             a.at, 1
        FROM audit_log a
       WHERE a.target_type = 'boardSet' AND a.outcome = 'success' AND a.target_id IS NOT NULL
         AND (a.action = 'provisioning.apply' OR (a.action = 'board.set.apply' AND a.actor_user_id IN (SELECT id FROM users)))
      UNION ALL
      SELECT h.origin->>'managedBy',
             CASE WHEN h.operation = 'provisioning' THEN 'provisioning' ELSE 'user' END,
             CASE WHEN h.operation = 'provisioning' THEN NULL ELSE h.actor_user_id END,
             h.at, 2
        FROM board_history h
       WHERE h.origin IS NOT NULL AND h.origin->>'managedBy' IS NOT NULL
         AND (h.operation = 'provisioning' OR h.actor_user_id IN (SELECT id FROM users))
    ) claims
    WHERE label IS NOT NULL
    ORDER BY label, rank, claimed_at`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('board_labels');
}
