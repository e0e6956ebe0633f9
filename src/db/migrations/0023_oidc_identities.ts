import type { Knex } from 'knex';

/**
 * OIDC-10..13: sign-in through an OpenID provider.
 * - `oidc_identities`: who a provider's account is in Tessera, by (issuer, subject), never by a name the provider lets
 *   its users change; a user may have several (one per issuer), an identity belongs to one user.
 * - `oidc_sign_ins`: the sign-ins started and not yet finished (OIDC-20): state, nonce and PKCE verifier, keyed by the
 *   sha256 of the browser's cookie, single use, short-lived; in the database so that any instance can finish it.
 * - `group_members.via_provider`: a membership the provider's group claim made (OIDC-14); sign-in removes only those.
 * - `sessions.oidc_issuer` / `oidc_id_token`: a session that came from a provider, for RP-initiated logout (OIDC-17).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oidc_identities', (t) => {
    t.text('issuer').notNullable();
    t.text('subject').notNullable();
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_sign_in_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['issuer', 'subject']);
    t.index(['user_id']);
  });
  await knex.schema.createTable('oidc_sign_ins', (t) => {
    // sha256 of the cookie value, hex.
    t.text('id').primary();
    t.text('state').notNullable();
    t.text('nonce').notNullable();
    t.text('code_verifier').notNullable();
    t.text('return_to').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.alterTable('group_members', (t) => {
    t.boolean('via_provider').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('sessions', (t) => {
    t.text('oidc_issuer').nullable();
    t.text('oidc_id_token').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('oidc_id_token');
    t.dropColumn('oidc_issuer');
  });
  await knex.schema.alterTable('group_members', (t) => {
    t.dropColumn('via_provider');
  });
  await knex.schema.dropTableIfExists('oidc_sign_ins');
  await knex.schema.dropTableIfExists('oidc_identities');
}
