import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GridElement, Occupancy, placeMissing, refitLayout } from '../../src/boards/document/grid';
import { widgetDefaultSize, widgetDefinitions, widgetKinds } from '../../src/widgets/registry';

const el = (type: 'item' | 'section', id: string, parentId: string, x: number, y: number, width: number, height: number): GridElement => ({
  type,
  id,
  parentId,
  x,
  y,
  width,
  height,
});

const byId = (elements: GridElement[]) => Object.fromEntries(elements.map((e) => [e.id, [e.x, e.y, e.width, e.height]]));

describe('GRID-2: grid refit', () => {
  // row0 abbbbbccdd, row1 efffffccdd, row2 efffffggdd, row3 efffffgg; inside f (5 columns): hhhhh / iiijj / iii
  const example = [
    el('item', 'a', 'root', 0, 0, 1, 1),
    el('item', 'b', 'root', 1, 0, 5, 1),
    el('item', 'c', 'root', 6, 0, 2, 2),
    el('item', 'd', 'root', 8, 0, 2, 3),
    el('item', 'e', 'root', 0, 1, 1, 3),
    el('section', 'f', 'root', 1, 1, 5, 3),
    el('section', 'g', 'root', 6, 2, 2, 2),
    el('item', 'h', 'f', 0, 0, 5, 1),
    el('item', 'i', 'f', 0, 1, 3, 2),
    el('item', 'j', 'f', 3, 1, 2, 1),
  ];

  it('re-packs the worked example from 10 to 3 columns', () => {
    const result = byId(refitLayout(example, ['root'], 10, 3));
    // a / bbb / cce / cce / dde / dd / dd / fff x4 / gg x2
    expect(result).toEqual({
      a: [0, 0, 1, 1],
      b: [0, 1, 3, 1],
      c: [0, 2, 2, 2],
      e: [2, 2, 1, 3],
      d: [0, 4, 2, 3],
      f: [0, 7, 3, 4],
      g: [0, 11, 2, 2],
      // inside f: hhh / iii / iii / jj
      h: [0, 0, 3, 1],
      i: [0, 1, 3, 2],
      j: [0, 3, 2, 1],
    });
  });

  it('keeps every position when the column count does not shrink', () => {
    const result = byId(refitLayout(example, ['root'], 10, 12));
    expect(result).toEqual(byId(example));
  });

  it('leaves out elements whose parent has no position and keeps sections apart', () => {
    const result = refitLayout([el('item', 'x', 'other', 0, 0, 1, 1), el('item', 'y', 'orphan-parent', 0, 0, 1, 1)], ['other'], 4, 2);
    expect(result.map((e) => e.id)).toEqual(['x']);
  });

  it('places missing elements at the first free cell of their section, clamped to the columns', () => {
    const placed = [el('item', 'a', 's', 0, 0, 2, 1)];
    const result = placeMissing(placed, [el('item', 'm', 's', 0, 0, 5, 1), el('item', 'n', 's', 0, 0, 1, 1)], 3);
    expect(byId(result)).toEqual({ m: [0, 1, 3, 1], n: [2, 0, 1, 1] });
  });
});

describe('occupancy', () => {
  it('finds the first free cell row by row, left to right', () => {
    const grid = new Occupancy(4);
    grid.mark({ x: 0, y: 0, width: 3, height: 1 });
    expect(grid.firstFree(1, 1)).toEqual({ x: 3, y: 0 });
    expect(grid.firstFree(2, 1)).toEqual({ x: 0, y: 1 });
    expect(grid.firstFree(5, 1)).toBeNull();
  });

  /** The first free cell by scanning every row from the top, as GRID-1 defines it. */
  const scanFromTop = (grid: Occupancy, width: number, height: number) => {
    for (let y = 0; ; y++) for (let x = 0; x + width <= grid.columns; x++) if (grid.fits(x, y, width, height)) return { x, y };
  };

  it('finds what a scan from the top finds, however blocks were placed and searched before', () => {
    const block = fc.record({ width: fc.integer({ min: 1, max: 4 }), height: fc.integer({ min: 1, max: 3 }), placeAt: fc.option(fc.record({ x: fc.nat(5), y: fc.nat(12) })) });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(block, { maxLength: 60 }), (columns, blocks) => {
        const grid = new Occupancy(columns);
        for (const { width, height, placeAt } of blocks) {
          if (width > columns) continue;
          const found = grid.firstFree(width, height);
          expect(found).toEqual(scanFromTop(grid, width, height));
          grid.mark({ ...(placeAt ?? found!), width, height });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('WIDGET-1: widget registry', () => {
  it('lists exactly the kinds of the WidgetKind enum in the OpenAPI document', () => {
    const document = JSON.parse(readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8'));
    expect(document.components.schemas.WidgetKind.enum).toEqual(widgetKinds);
    expect(widgetKinds).toHaveLength(54);
  });

  it('knows the default sizes, 1x1 otherwise', () => {
    expect(widgetDefaultSize('uptimeKuma')).toEqual({ width: 2, height: 3 });
    expect(widgetDefaultSize('audioStats')).toEqual({ width: 2, height: 2 });
    expect(widgetDefaultSize('paperlessNgx')).toEqual({ width: 2, height: 2 });
    expect(widgetDefaultSize('patchmon')).toEqual({ width: 2, height: 2 });
    expect(widgetDefaultSize('mediaMissing')).toEqual({ width: 4, height: 3 });
    expect(widgetDefaultSize('bazarr')).toEqual({ width: 2, height: 2 });
    expect(widgetDefaultSize('clock')).toEqual({ width: 1, height: 1 });
    expect([...widgetDefinitions.values()].filter((w) => w.defaultSize.width * w.defaultSize.height > 1)).toHaveLength(6);
  });

  it('records supported integration kinds', () => {
    expect(widgetDefinitions.get('clock')!.integrationKinds).toEqual([]);
    expect(widgetDefinitions.get('dnsHoleSummary')!.integrationKinds).toEqual(['piHole', 'adGuardHome', 'technitiumDns', 'mock']);
    expect(widgetDefinitions.get('immich-serverStats')!.integrationsRequired).toBe(true);
  });
});
