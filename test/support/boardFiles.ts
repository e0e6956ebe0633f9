import { unique } from './unique';

/**
 * A board file (FILE-1) of `clocks` clock items in one empty section of a 12-column Base layout: the unit the fleet
 * tests apply, provision and plan. `stable` derives the section and item ids from the name, so the same file written
 * again is the same board (a re-apply plans nothing); otherwise every call has fresh ids.
 */
export function clockBoardFile(name: string, clocks = 2, { stable = false }: { stable?: boolean } = {}) {
  const section = stable ? `sec${name.replace(/[^a-z0-9]/gi, '')}` : unique('sec');
  return {
    apiVersion: 'tessera/v1',
    kind: 'Board',
    name,
    layouts: [{ name: 'Base', columnCount: 12, breakpoint: 0 }],
    sections: [{ id: section, kind: 'empty', xOffset: 0, yOffset: 0 }],
    items: Array.from({ length: clocks }, (_, i) => ({
      id: stable ? `${section}clk${i}` : unique('clk'),
      kind: 'clock',
      options: { is24HourFormat: true },
      layouts: [{ layout: 'Base', sectionId: section, xOffset: (i % 6) * 2, yOffset: Math.floor(i / 6), width: 2, height: 1 }],
    })),
  };
}
