/**
 * Warnings of a save plan (PLAN-4): what the save would store as sent but is probably a mistake. They never refuse
 * anything (options are not validated, PUT-9). The rules are pure; `loadWarningFacts` reads what they need to know
 * about apps and integrations.
 */
import type { Knex } from 'knex';
import { loadAppAccess } from '../../apps/access';
import { placedAppIds } from '../../apps/placements';
import type { Principal } from '../../identity/principal';
import { whereAmong } from '../../db/idList';
import { optionIssues } from '../../widgets/options';
import { widgetDefinitions } from '../../widgets/registry';
import { groupBy, readableItems, type BoardState } from './model';
import type { BoardContent } from './types';
import { independentReads } from '../../db/independentReads';
import { Integration } from '../../db/models';

export type WarningCode = 'MISSING_POSITION' | 'OUTSIDE_COLUMNS' | 'OVERLAP' | 'UNKNOWN_OPTION' | 'OPTION_TYPE' | 'UNKNOWN_APP' | 'UNSUPPORTED_INTEGRATION';

export interface PlanWarning {
  code: WarningCode;
  /** JSON pointer into the payload. */
  path: string;
  message: string;
}

/** What the warnings need to know beyond the board: apps the caller can see, kinds of the bound integrations. */
export interface WarningFacts {
  visibleAppIds: ReadonlySet<string>;
  integrationKinds: ReadonlyMap<string, string>;
}

export async function loadWarningFacts(q: Knex, principal: Principal, content: BoardContent): Promise<WarningFacts> {
  const appIds = [...new Set(content.items.flatMap((item) => placedAppIds(item)))];
  const integrationIds = [...new Set(content.items.flatMap((item) => item.integrationIds))];
  const [apps, integrations] = await independentReads(q, [
    () => loadAppAccess(q, principal, appIds),
    () => integrationIds.length === 0 ? [] : (Integration.query(q).modify(whereAmong, 'id', integrationIds).select('id', 'kind') as unknown as Promise<{ id: string; kind: string }[]>),
  ]);
  return {
    visibleAppIds: new Set([...apps].filter(([, flags]) => flags.hasUseAccess).map(([id]) => id)),
    integrationKinds: new Map(integrations.map((row) => [row.id, row.kind])),
  };
}

/**
 * The warnings of saving `content` as `after` (the board the save would leave): positions missing for a board
 * layout (PUT-10), positions past the layout's columns, items overlapping in a section of a layout, options the
 * widget kind does not define or of the wrong type (WIDGET-2), app ids the caller cannot see, bindings of
 * integrations the widget does not support.
 */
export function contentWarnings(after: BoardState, content: BoardContent, facts: WarningFacts): PlanWarning[] {
  const warnings: PlanWarning[] = [];
  const index = new Map(content.items.map((item, i) => [item.id, i]));
  const columns = new Map(after.layouts.map((layout) => [layout.id, layout]));
  const positions = groupBy(after.itemLayouts, (p) => p.itemId);
  const bindings = groupBy(after.bindings, (b) => b.itemId);

  for (const item of readableItems(after)) {
    const i = index.get(item.id);
    if (i === undefined) continue;
    const path = `/items/${i}`;
    const own = positions.get(item.id) ?? [];
    for (const layout of after.layouts) {
      if (!own.some((p) => p.layoutId === layout.id)) {
        warnings.push({ code: 'MISSING_POSITION', path: `${path}/layouts`, message: `Item ${item.id} has no position in layout ${layout.name}: a later layout change places it anew (PUT-10)` });
      }
    }
    for (const p of own) {
      const layout = columns.get(p.layoutId);
      if (layout && p.xOffset + p.width > layout.columnCount) {
        const at = content.items[i].layouts.findIndex((entry) => entry.layoutId === p.layoutId);
        warnings.push({
          code: 'OUTSIDE_COLUMNS',
          path: at >= 0 ? `${path}/layouts/${at}` : `${path}/layouts`,
          message: `Item ${item.id} reaches column ${p.xOffset + p.width} of layout ${layout.name}, which has ${layout.columnCount} columns`,
        });
      }
    }
    // The payload's options, in the order they were sent.
    for (const issue of optionIssues(item.kind, content.items[i].options)) {
      warnings.push({ code: issue.code, path: `${path}${issue.path}`, message: `Item ${item.id} (${item.kind}): ${issue.message}` });
    }
    for (const appId of placedAppIds(item)) {
      if (!facts.visibleAppIds.has(appId)) warnings.push({ code: 'UNKNOWN_APP', path: `${path}/options`, message: `Item ${item.id} names app ${appId}, which is not an app you can see` });
    }
    const supported = widgetDefinitions.get(item.kind)?.integrationKinds ?? [];
    for (const binding of bindings.get(item.id) ?? []) {
      const kind = facts.integrationKinds.get(binding.integrationId);
      if (kind !== undefined && !supported.includes(kind)) {
        warnings.push({
          code: 'UNSUPPORTED_INTEGRATION',
          path: `${path}/integrationIds`,
          message: `Item ${item.id} (${item.kind}) is bound to integration ${binding.integrationId} of kind ${kind}, which the widget does not support`,
        });
      }
    }
  }
  warnings.push(...overlaps(after, index));
  return warnings;
}

/** Items of the payload that share a cell with another item in the same section of the same layout. */
function overlaps(after: BoardState, index: ReadonlyMap<string, number>): PlanWarning[] {
  const warnings: PlanWarning[] = [];
  const layoutNames = new Map(after.layouts.map((layout) => [layout.id, layout.name]));
  const known = new Set(readableItems(after).map((item) => item.id));
  const grids = groupBy(
    after.itemLayouts.filter((p) => known.has(p.itemId)),
    (p) => `${p.layoutId}\n${p.sectionId}`,
  );
  for (const placed of grids.values()) {
    const owner = new Map<string, string>();
    const reported = new Set<string>();
    for (const p of placed) {
      for (let y = p.yOffset; y < p.yOffset + p.height; y++) {
        for (let x = p.xOffset; x < p.xOffset + p.width; x++) {
          const cell = `${x},${y}`;
          const other = owner.get(cell);
          if (other === undefined) {
            owner.set(cell, p.itemId);
            continue;
          }
          const pair = `${other}\n${p.itemId}`;
          if (other === p.itemId || reported.has(pair)) continue;
          reported.add(pair);
          const i = index.get(p.itemId) ?? index.get(other);
          warnings.push({
            code: 'OVERLAP',
            path: i === undefined ? '/items' : `/items/${i}/layouts`,
            message: `Items ${other} and ${p.itemId} overlap in section ${p.sectionId} of layout ${layoutNames.get(p.layoutId) ?? p.layoutId}`,
          });
        }
      }
    }
  }
  return warnings;
}
