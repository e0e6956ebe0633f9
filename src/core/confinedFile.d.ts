export type ConfinedRead = { text: string; missing?: undefined; refused?: undefined } | { missing: true; text?: undefined; refused?: undefined } | { refused: string; text?: undefined; missing?: undefined };

/** `relative` inside `directory`, read only when it is a regular file whose real path lies inside, of at most `maxBytes` bytes. */
export function readConfinedFile(directory: string, relative: string, maxBytes: number, directoryName?: string): ConfinedRead;
