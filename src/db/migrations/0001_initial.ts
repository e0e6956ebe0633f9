import type { Knex } from 'knex';

/**
 * The whole data model of the board document (docs/rules.md, DOC-1), plus what Tessera adds:
 * board version and revision, API-key name/scopes/expiry, sessions, login throttling, app grants.
 * Column names are snake_case; the knex mappers expose them as camelCase.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('username').notNullable();
    t.text('email').nullable();
    t.text('password_hash').nullable();
    t.text('home_board_id').nullable();
    t.text('mobile_home_board_id').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX users_username_lower_unique ON users (lower(username))');

  await knex.schema.createTable('groups', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('owner_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.text('home_board_id').nullable();
    t.text('mobile_home_board_id').nullable();
    t.integer('position').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX groups_name_lower_unique ON groups (lower(name))');

  await knex.schema.createTable('group_members', (t) => {
    t.text('group_id').notNullable().references('id').inTable('groups').onDelete('CASCADE');
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.primary(['group_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('group_permissions', (t) => {
    t.text('group_id').notNullable().references('id').inTable('groups').onDelete('CASCADE');
    t.text('permission').notNullable();
    t.primary(['group_id', 'permission']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('name').nullable();
    // sha256 of the secret token, hex; the token itself is never stored.
    t.text('token_hash').notNullable();
    t.jsonb('scopes').nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.index(['user_id']);
  });

  await knex.schema.createTable('sessions', (t) => {
    // sha256 of the cookie value, hex.
    t.text('id').primary();
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id']);
  });

  await knex.schema.createTable('login_failures', (t) => {
    t.text('key').primary();
    t.integer('failures').notNullable().defaultTo(0);
    t.timestamp('window_started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('boards', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.boolean('is_public').notNullable().defaultTo(false);
    t.text('creator_id').nullable().references('id').inTable('users').onDelete('SET NULL');
    t.text('page_title').nullable();
    t.text('meta_title').nullable();
    t.text('logo_image_url').nullable();
    t.text('favicon_image_url').nullable();
    t.text('background_image_url').nullable();
    t.text('background_image_attachment').notNullable().defaultTo('fixed');
    t.text('background_image_repeat').notNullable().defaultTo('no-repeat');
    t.text('background_image_size').notNullable().defaultTo('cover');
    t.text('primary_color').notNullable().defaultTo('#fa5252');
    t.text('secondary_color').notNullable().defaultTo('#fd7e14');
    t.integer('opacity').notNullable().defaultTo(100);
    t.text('custom_css').nullable();
    t.text('icon_color').nullable();
    t.text('item_radius').notNullable().defaultTo('lg');
    t.boolean('disable_status').notNullable().defaultTo(false);
    // Optimistic-concurrency token of the spec: moves only on the writes the version table names.
    t.integer('version').notNullable().defaultTo(0);
    // Internal revision: moves on every write; ETags and caches key on it, never on version alone.
    t.integer('revision').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX boards_name_lower_unique ON boards (lower(name))');

  await knex.schema.alterTable('users', (t) => {
    t.foreign('home_board_id').references('id').inTable('boards').onDelete('SET NULL');
    t.foreign('mobile_home_board_id').references('id').inTable('boards').onDelete('SET NULL');
  });
  await knex.schema.alterTable('groups', (t) => {
    t.foreign('home_board_id').references('id').inTable('boards').onDelete('SET NULL');
    t.foreign('mobile_home_board_id').references('id').inTable('boards').onDelete('SET NULL');
  });

  await knex.schema.createTable('layouts', (t) => {
    t.text('id').primary();
    t.text('board_id').notNullable().references('id').inTable('boards').onDelete('CASCADE');
    t.text('name').notNullable();
    t.integer('column_count').notNullable();
    t.integer('breakpoint').notNullable().defaultTo(0);
    t.index(['board_id']);
  });

  await knex.schema.createTable('sections', (t) => {
    t.text('id').primary();
    t.text('board_id').notNullable().references('id').inTable('boards').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.integer('x_offset').nullable();
    t.integer('y_offset').nullable();
    t.text('name').nullable();
    t.jsonb('options').nullable();
    t.index(['board_id']);
  });

  await knex.schema.createTable('section_layouts', (t) => {
    t.text('section_id').notNullable().references('id').inTable('sections').onDelete('CASCADE');
    t.text('layout_id').notNullable().references('id').inTable('layouts').onDelete('CASCADE');
    t.text('parent_section_id').nullable().references('id').inTable('sections').onDelete('CASCADE');
    t.integer('x_offset').notNullable();
    t.integer('y_offset').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.primary(['section_id', 'layout_id']);
    t.index(['layout_id']);
    t.index(['parent_section_id']);
  });

  await knex.schema.createTable('section_collapse_states', (t) => {
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('section_id').notNullable().references('id').inTable('sections').onDelete('CASCADE');
    t.boolean('collapsed').notNullable().defaultTo(false);
    t.primary(['user_id', 'section_id']);
    t.index(['section_id']);
  });

  await knex.schema.createTable('items', (t) => {
    t.text('id').primary();
    t.text('board_id').notNullable().references('id').inTable('boards').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.jsonb('options').notNullable().defaultTo('{}');
    t.jsonb('advanced_options').notNullable().defaultTo('{}');
    t.index(['board_id']);
  });

  await knex.schema.createTable('item_layouts', (t) => {
    t.text('item_id').notNullable().references('id').inTable('items').onDelete('CASCADE');
    t.text('section_id').notNullable().references('id').inTable('sections').onDelete('CASCADE');
    t.text('layout_id').notNullable().references('id').inTable('layouts').onDelete('CASCADE');
    t.integer('x_offset').notNullable();
    t.integer('y_offset').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    // Every writer matches positions on (item, layout): one position per item and layout.
    t.primary(['item_id', 'layout_id']);
    t.index(['section_id']);
    t.index(['layout_id']);
  });

  await knex.schema.createTable('apps', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('description').nullable();
    t.text('icon_url').notNullable();
    t.text('href').nullable();
    t.text('ping_url').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('integrations', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.text('url').notNullable();
    t.text('app_id').nullable().references('id').inTable('apps').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['kind']);
  });

  await knex.schema.createTable('integration_secrets', (t) => {
    t.text('integration_id').notNullable().references('id').inTable('integrations').onDelete('CASCADE');
    t.text('kind').notNullable();
    // Encrypted at rest (iv.ciphertext); never returned.
    t.text('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['integration_id', 'kind']);
  });

  await knex.schema.createTable('integration_items', (t) => {
    t.text('item_id').notNullable().references('id').inTable('items').onDelete('CASCADE');
    t.text('integration_id').notNullable().references('id').inTable('integrations').onDelete('CASCADE');
    t.primary(['item_id', 'integration_id']);
    t.index(['integration_id']);
  });

  for (const [table, target, principal, principalTable] of [
    ['board_user_permissions', 'board_id', 'user_id', 'users'],
    ['board_group_permissions', 'board_id', 'group_id', 'groups'],
    ['integration_user_permissions', 'integration_id', 'user_id', 'users'],
    ['integration_group_permissions', 'integration_id', 'group_id', 'groups'],
    ['app_user_permissions', 'app_id', 'user_id', 'users'],
    ['app_group_permissions', 'app_id', 'group_id', 'groups'],
  ] as const) {
    const targetTable = target === 'board_id' ? 'boards' : target === 'app_id' ? 'apps' : 'integrations';
    await knex.schema.createTable(table, (t) => {
      t.text(target).notNullable().references('id').inTable(targetTable).onDelete('CASCADE');
      t.text(principal).notNullable().references('id').inTable(principalTable).onDelete('CASCADE');
      t.text('permission').notNullable();
      t.primary([target, principal, 'permission']);
      t.index([principal]);
    });
  }

  await knex.schema.createTable('server_settings', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'server_settings',
    'app_group_permissions',
    'app_user_permissions',
    'integration_group_permissions',
    'integration_user_permissions',
    'board_group_permissions',
    'board_user_permissions',
    'integration_items',
    'integration_secrets',
    'integrations',
    'apps',
    'item_layouts',
    'items',
    'section_collapse_states',
    'section_layouts',
    'sections',
    'layouts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('users', (t) => {
    t.dropForeign(['home_board_id']);
    t.dropForeign(['mobile_home_board_id']);
  });
  await knex.schema.alterTable('groups', (t) => {
    t.dropForeign(['home_board_id']);
    t.dropForeign(['mobile_home_board_id']);
  });
  for (const table of ['boards', 'login_failures', 'sessions', 'api_keys', 'group_permissions', 'group_members', 'groups', 'users']) {
    await knex.schema.dropTableIfExists(table);
  }
}
