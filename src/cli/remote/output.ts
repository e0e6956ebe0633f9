/** What the remote commands print: lines and tables for people (coloured on a terminal), JSON for scripts. */
import { createInterface } from 'node:readline/promises';
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

/** Refuses to `verb` when there is no terminal to ask on: a pipeline must pass --yes. */
export function assertCanConfirm(verb: string): void {
  if (!process.stdin.isTTY) throw new Error(`Refusing to ${verb} without confirmation: stdin is not a terminal (pass --yes)`);
}

/** Asks on the terminal (stderr), after `assertCanConfirm`. */
export async function confirmed(question: string, verb: string): Promise<boolean> {
  assertCanConfirm(verb);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}
