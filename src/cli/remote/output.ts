/** What the remote commands print: lines and tables for people (coloured on a terminal), JSON for scripts. */
import Table from 'cli-table3';
import pc from 'picocolors';

export type Colors = ReturnType<typeof pc.createColors>;

/** Colours when stdout is a terminal (picocolors leaves them out for NO_COLOR and TERM=dumb). */
export const colors: Colors = pc.createColors(process.stdout.isTTY === true && pc.isColorSupported);

export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  printLine(JSON.stringify(value, null, 2));
}

/** A table without borders, columns two spaces apart, as `kubectl get` prints them. */
export function printTable(head: string[], rows: string[][]): void {
  const none = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '' };
  const table = new Table({
    head: head.map((title) => colors.bold(title.toUpperCase())),
    chars: { ...none, left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  table.push(...rows);
  printLine(table.toString().split('\n').map((line) => line.trimEnd()).join('\n'));
}

export const yesNo = (value: boolean) => (value ? 'yes' : 'no');
